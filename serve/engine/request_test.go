package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/omni-tts/omni/serve"
)

// TestEngineRequestRefusals: Start (a short and a long input) and
// StartLive build their requests alike, and refuse alike naming the field:
// another task_type, instructions to a model that takes none (synth:tiny),
// max_new_tokens below min_tokens. A refusal of a long input's text also
// names the segment (its index and characters); a refusal of its
// overrides does not, nor any refusal of a short or live request.
func TestEngineRequestRefusals(t *testing.T) {
	r := startEngine(t, 1, serve.Config{})
	ctx := context.Background()
	const segment = "segment 0 (characters 0.."
	short, long := "Hi.", longMixed(5000)
	start := func(req serve.SpeechRequest) error {
		st, err := r.syn.Start(ctx, req)
		if err == nil {
			st.Close()
		}
		return err
	}
	live := func(req serve.SpeechRequest) error {
		st, err := r.syn.StartLive(ctx, req)
		if err == nil {
			st.Close()
		}
		return err
	}
	for _, c := range []struct {
		name   string
		start  func(serve.SpeechRequest) error
		req    serve.SpeechRequest
		field  string
		prefix bool // the message names the segment
	}{
		{"short, task_type", start, serve.SpeechRequest{Input: short, Voice: "vivian", TaskType: "Base"}, "task_type", false},
		{"long, task_type", start, serve.SpeechRequest{Input: long, Voice: "vivian", TaskType: "Base"}, "task_type", false},
		{"live, task_type", live, serve.SpeechRequest{Input: short, Voice: "vivian", TaskType: "Base"}, "task_type", false},
		{"short, instructions", start, serve.SpeechRequest{Input: short, Voice: "vivian", Instructions: "Softly."}, "instructions", false},
		{"long, instructions", start, serve.SpeechRequest{Input: long, Voice: "vivian", Instructions: "Softly."}, "instructions", true},
		{"live, instructions", live, serve.SpeechRequest{Input: short, Voice: "vivian", Instructions: "Softly."}, "instructions", false},
		{"short, max_new_tokens", start, serve.SpeechRequest{Input: short, Voice: "vivian", MaxNewTokens: 1}, "max_new_tokens", false},
		{"long, max_new_tokens", start, serve.SpeechRequest{Input: long, Voice: "vivian", MaxNewTokens: 1}, "max_new_tokens", false},
		{"live, max_new_tokens", live, serve.SpeechRequest{Input: short, Voice: "vivian", MaxNewTokens: 1}, "max_new_tokens", false},
	} {
		err := c.start(c.req)
		var fe *serve.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: %v, want a refusal naming %s", c.name, err, c.field)
			continue
		}
		if got := strings.HasPrefix(fe.Msg, segment); got != c.prefix {
			t.Errorf("%s: %q names the segment: %v, want %v", c.name, fe.Msg, got, c.prefix)
		}
	}
	waitIdle(t, r.e)
}
