package engine_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/serve"
)

// TestEngineLongWaitsForAdmission: a long input's Start returns at its
// first segment's admission as a plain request's does: with the engine's
// loop stopped it waits in the engine's queue (one segment submitted, not
// all of them), and when the adapter learns the loop stopped the client
// gets 503, not a 200 with an aborted stream.
func TestEngineLongWaitsForAdmission(t *testing.T) {
	r := startEngine(t, 2, serve.Config{MaxInputChars: 100000})
	r.stopRun()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type answer struct {
		status int
		body   []byte
		err    error
	}
	waiting := make(chan answer, 1)
	go func() {
		s, b, err := speak(ctx, r.ts.URL, `{"input":`+jsonString(longMixed(5000))+`,"voice":"vivian","response_format":"pcm"}`)
		waiting <- answer{s, b, err}
	}()
	waitFor(t, "the first segment queued in the engine", func() bool {
		l, err := r.e.Load()
		return err == nil && l.Waiting == 1
	})
	time.Sleep(50 * time.Millisecond) // room for a wrong second submission
	if l, _ := r.e.Load(); l.Waiting != 1 {
		t.Errorf("%d requests in the engine's queue, want only the first segment", l.Waiting)
	}
	r.syn.Stopped(errors.New("test: loop ended"))
	a := <-waiting
	if a.err != nil || a.status != 503 || !strings.Contains(string(a.body), "engine_unavailable") {
		t.Errorf("waiting long request: status %d %s (%v), want 503 engine_unavailable", a.status, a.body, a.err)
	}
}

// TestEngineLongOverridesAsStart: a long input's segments take Start's
// overrides, refusals included: max_new_tokens below the model's
// min_tokens is a 400 naming max_new_tokens, as for a short input.
func TestEngineLongOverridesAsStart(t *testing.T) {
	r := startEngine(t, 2, serve.Config{MaxInputChars: 100000})
	req, err := r.e.Request(core.TextInput{Text: "Hi.", Speaker: "vivian"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Talker.MinTokens < 2 {
		t.Skipf("synth:tiny's min_tokens %d leaves no cap below it", req.Talker.MinTokens)
	}
	ctx := context.Background()
	for _, input := range []string{"Hi.", longMixed(5000)} {
		s, b, err := speak(ctx, r.ts.URL, `{"input":`+jsonString(input)+`,"voice":"vivian","max_new_tokens":1}`)
		if err != nil || s != 400 || !strings.Contains(string(b), `"param":"max_new_tokens"`) {
			t.Errorf("%d characters, max_new_tokens 1: status %d %s (%v), want 400 naming max_new_tokens", len(input), s, b, err)
		}
	}
}

// TestEngineLive: a live request started with its first words, fed the
// rest word by word and closed, speaks until its end of speech or cap in
// whole frames, its Result counting the frames read and every text token
// fed; fed after its end of text, it refuses.
func TestEngineLive(t *testing.T) {
	r := startEngine(t, 2, serve.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seed := uint64(5)
	live, err := r.syn.StartLive(ctx, serve.SpeechRequest{Input: "Hello", Voice: "vivian", Seed: &seed, MaxNewTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	first, err := r.e.Request(core.TextInput{Text: "Hello", Speaker: "vivian", Layout: "streaming"})
	if err != nil {
		t.Fatal(err)
	}
	tokens := len(first.TextIDs)
	for _, w := range []string{" there,", " word", " by", " word."} {
		if err := live.Feed(w); err != nil {
			t.Fatalf("feed %q: %v", w, err)
		}
		fr, err := r.e.Request(core.TextInput{Text: w, Speaker: "vivian", Layout: "streaming"})
		if err != nil {
			t.Fatal(err)
		}
		tokens += len(fr.TextIDs)
	}
	live.End()
	frames, samples := 0, 0
	for {
		ch, err := live.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frames += ch.Frames
		samples += len(ch.PCM)
	}
	res := live.Result()
	if frames == 0 || frames > 30 || samples != frames*serve.SamplesPerFrame || res.Frames != frames {
		t.Errorf("%d frames, %d samples, result %+v; want 1..30 whole frames, counted in the result", frames, samples, res)
	}
	if res.Reason != serve.EndEOS && res.Reason != serve.EndMaxTokens {
		t.Errorf("end reason %q, want eos or max_tokens", res.Reason)
	}
	if res.InputTokens != tokens {
		t.Errorf("input tokens %d, want the %d tokens of the first words and every feed", res.InputTokens, tokens)
	}
	if err := live.Feed(" more"); err == nil {
		t.Error("feeding text after End was accepted")
	}
	waitIdle(t, r.e)
}
