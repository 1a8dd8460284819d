package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkAccepted checks a decoded request against fuzzInfo's model and a
// 64-character input bound, as FuzzDecodeSpeech does.
func checkAccepted(t *testing.T, what string, p speechParams) {
	t.Helper()
	r := p.Req
	switch {
	case strings.TrimSpace(r.Input) == "" || utf8.RuneCountInString(r.Input) > 64 || !utf8.ValidString(r.Input):
		t.Fatalf("%s: accepted input %q", what, r.Input)
	case r.Voice != "vivian" && r.Voice != "ryan":
		t.Fatalf("%s: accepted voice %q", what, r.Voice)
	case p.Format != FormatWAV && p.Format != FormatPCM && p.Format != FormatMP3 && p.Format != FormatFLAC && p.Format != FormatOpus:
		t.Fatalf("%s: accepted format %q", what, p.Format)
	case !(p.Speed >= 0.25 && p.Speed <= 4):
		t.Fatalf("%s: accepted speed %g", what, p.Speed)
	case r.Language != "" && r.Language != "English" && r.Language != "Chinese":
		t.Fatalf("%s: accepted language %q", what, r.Language)
	case r.MaxNewTokens < 0 || r.MaxNewTokens > 100:
		t.Fatalf("%s: accepted max_new_tokens %d", what, r.MaxNewTokens)
	case r.TopP != nil && (*r.TopP <= 0 || *r.TopP > 1):
		t.Fatalf("%s: accepted top_p %g", what, *r.TopP)
	}
}

// FuzzDecodeBatch checks POST /v1/audio/speech/batch bodies: a batch is
// refused with a typed error naming body, items, stream or stream_format;
// or it has 1 to 32 items, each refused with a typed error naming
// items[i], or decoded (top-level fields under the item's own) to a
// request as valid as a single one, in whole-file form (default wav), the
// inputs of all items within 4 × MaxInputChars characters.
func FuzzDecodeBatch(f *testing.F) {
	many := strings.TrimSuffix(strings.Repeat(`{"input":"hello"},`, 33), ",")
	long := strings.TrimSuffix(strings.Repeat(`{"input":"abcdefghij"},`, 30), ",")
	for _, s := range []string{
		`{"response_format":"pcm","voice":"ryan","items":[{"input":"one two"},{"input":"a b","response_format":"wav"},` +
			`{"input":"bad voice here","voice":"nobody"},{"input":"x y z","request_id":"r4"},{"input":"speed two","speed":2},` +
			`{"input":"w","voice":"vivian","language":"english"}]}`,
		`{"response_format":"pcm","voice":"vivian","seed":3,"max_new_tokens":8,"items":[{"input":"Hello there."},{"input":"A second one.","seed":5}]}`,
		`{"items":[]}`, `{"items":[` + many + `]}`, `{"input":"x"}`, `{"items":{"input":"x"}}`, `{"items":[{"input":"hello"}],"stream_format":"sse"}`,
		`{"items":[` + long + `]}`, `{"items":[{"input":"hi"},{"input":"far too long for ten"}],"response_format":"pcm"}`,
		`{"items":[{"input":"x","stream":true},null,7,{"input":"\ud800"},{"model":"nope","input":"x"}]}`, `null`, `[`,
		// the shared input is every item's: 32 × 64 characters
		`{"input":"` + strings.Repeat("w", 64) + `","items":[` + strings.TrimSuffix(strings.Repeat(`{},`, 32), ",") + `]}`,
	} {
		f.Add([]byte(s))
	}
	s, err := New(drainingSynth{}, Config{MaxInputChars: 64})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := s.decodeBatch(body)
		if err != nil {
			var fe *FieldError
			var te *TooLongError
			switch {
			case errors.As(err, &fe):
				if fe.Field != "body" && fe.Field != "items" && fe.Field != "stream" && fe.Field != "stream_format" {
					t.Fatalf("batch refused naming field %q: %v", fe.Field, err)
				}
			case errors.As(err, &te):
				if te.Field != "items" || te.Len <= te.Limit {
					t.Fatalf("batch refused as too long: %v", err)
				}
			default:
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		var top struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &top); err != nil {
			t.Fatalf("batch accepted, but encoding/json refuses it: %v", err)
		}
		if len(items) < 1 || len(items) > 32 || len(items) != len(top.Items) {
			t.Fatalf("%d items accepted from %d", len(items), len(top.Items))
		}
		total := 0
		for i, it := range items {
			what := fmt.Sprintf("items[%d]", i)
			if it.err != nil {
				var fe *FieldError
				var te *TooLongError
				var me *modelError
				switch {
				case errors.As(it.err, &fe):
					if !strings.HasPrefix(fe.Field, what) {
						t.Fatalf("%s refused naming %q: %v", what, fe.Field, it.err)
					}
				case errors.As(it.err, &te):
					if !strings.HasPrefix(te.Field, what) {
						t.Fatalf("%s refused naming %q: %v", what, te.Field, it.err)
					}
				case errors.As(it.err, &me):
					if !strings.HasPrefix(it.err.Error(), what+": ") {
						t.Fatalf("%s refused with %q", what, it.err)
					}
				default:
					t.Fatalf("%s: untyped error %T %v", what, it.err, it.err)
				}
				continue
			}
			checkAccepted(t, what, it.p)
			if it.p.StreamFormat != StreamAudio {
				t.Fatalf("%s: stream format %q in a batch", what, it.p.StreamFormat)
			}
			total += utf8.RuneCountInString(it.p.Req.Input)
		}
		if total > 4*64 {
			t.Fatalf("batch accepted with %d characters of input in all, limit %d", total, 4*64)
		}
	})
}
