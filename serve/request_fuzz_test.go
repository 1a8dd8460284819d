package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzInfo is a model for the decoder fuzz: two voices, two languages.
var fuzzInfo = ModelInfo{Name: "omni", ModelType: "CustomVoice", Voices: []Voice{{Name: "vivian"}, {Name: "ryan"}},
	Languages: []string{"English", "Chinese"}, Instructions: true, SampleRate: SampleRate, MaxNewTokens: 100}

// FuzzDecodeSpeech checks that any body either decodes to a request that
// satisfies every documented constraint, or is refused with a typed error;
// never a panic.
func FuzzDecodeSpeech(f *testing.F) {
	for _, s := range []string{
		`{"model":"omni","input":"Hello","voice":"vivian","response_format":"wav"}`,
		`{"input":"x","voice":{"id":"ryan"},"stream":true,"max_new_tokens":5,"top_k":3,"seed":1}`,
		`{"input":"x","speed":1e400}`, `{"input":"x","speed":0.25,"response_format":"opus"}`, `{"input":"\ud800"}`, `{"input":"x","top_p":null}`, `null`, `{}`, `[`,
		`{"input":"x","language":"auto","temperature":0,"repetition_penalty":1.1,"task_type":"CustomVoice"}`,
	} {
		f.Add([]byte(s))
	}
	lim := requestLimits{Info: fuzzInfo, ModelAliases: []string{"tts-1"}, DefaultFormat: FormatMP3, MaxInputChars: 64}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeSpeech(body, lim)
		if err != nil {
			switch err.(type) {
			case *FieldError, *TooLongError, *modelError:
			default:
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		r := p.Req
		if strings.TrimSpace(r.Input) == "" || utf8.RuneCountInString(r.Input) > 64 || !utf8.ValidString(r.Input) {
			t.Fatalf("accepted input %q", r.Input)
		}
		if r.Voice != "vivian" && r.Voice != "ryan" {
			t.Fatalf("accepted voice %q", r.Voice)
		}
		if p.Format != FormatWAV && p.Format != FormatPCM && p.Format != FormatMP3 && p.Format != FormatFLAC && p.Format != FormatOpus {
			t.Fatalf("accepted format %q", p.Format)
		}
		if !(p.Speed >= 0.25 && p.Speed <= 4) {
			t.Fatalf("accepted speed %g", p.Speed)
		}
		if p.StreamFormat != StreamAudio && p.StreamFormat != StreamSSE {
			t.Fatalf("accepted stream format %q", p.StreamFormat)
		}
		if r.Language != "" && r.Language != "English" && r.Language != "Chinese" {
			t.Fatalf("accepted language %q", r.Language)
		}
		if r.MaxNewTokens < 0 || r.MaxNewTokens > 100 {
			t.Fatalf("accepted max_new_tokens %d", r.MaxNewTokens)
		}
		if r.TopP != nil && (*r.TopP <= 0 || *r.TopP > 1) {
			t.Fatalf("accepted top_p %g", *r.TopP)
		}
		if r.Temperature != nil && *r.Temperature < 0 {
			t.Fatalf("accepted temperature %g", *r.Temperature)
		}
		if r.RepetitionPenalty != nil && *r.RepetitionPenalty <= 0 {
			t.Fatalf("accepted repetition_penalty %g", *r.RepetitionPenalty)
		}
	})
}

// drainingSynth answers every Start with ErrDraining, so the handler fuzz
// exercises decoding and error mapping without audio.
type drainingSynth struct{}

func (drainingSynth) Info() ModelInfo { return fuzzInfo }
func (drainingSynth) Start(context.Context, SpeechRequest) (AudioStream, error) {
	return nil, ErrDraining
}
func (drainingSynth) Load() Load    { return Load{} }
func (drainingSynth) Health() error { return nil }

// FuzzSpeechHandler posts arbitrary bodies to the handler: the answer is
// always a status the API documents, with OpenAI's error shape.
func FuzzSpeechHandler(f *testing.F) {
	f.Add([]byte(`{"input":"x"}`))
	f.Add([]byte(`{"input":"x","voice":7}`))
	f.Add([]byte(`{"input":`))
	s, err := New(drainingSynth{}, Config{MaxInputChars: 64})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/audio/speech", strings.NewReader(string(body))))
		switch rec.Code {
		case 400, 404, 413, 503:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if !strings.HasPrefix(rec.Body.String(), `{"error":{"message":`) {
			t.Fatalf("body %q is not an OpenAI error", rec.Body)
		}
	})
}
