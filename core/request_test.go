package core

import (
	"errors"
	"strings"
	"testing"
)

func TestRequestValidation(t *testing.T) {
	ids := Qwen3TTSIDs()
	lim := DefaultLimits()
	ok := NewRequest([]int32{1, 2, 3})
	if err := ok.validate(&ids, lim); err != nil {
		t.Fatalf("default request refused: %v", err)
	}
	cases := []struct {
		name string
		edit func(r *Request)
		want string
	}{
		{"no text", func(r *Request) { r.TextIDs = nil }, "no text token ids"},
		{"text id too large", func(r *Request) { r.TextIDs = []int32{1, 151936} }, "text id [1] = 151936"},
		{"negative text id", func(r *Request) { r.TextIDs = []int32{-4} }, "text id [0] = -4"},
		{"language", func(r *Request) { r.Language = "klingon" }, `language "klingon"`},
		{"speaker", func(r *Request) { r.Speaker = "nobody" }, `speaker "nobody"`},
		{"speaker id in codebook", func(r *Request) { r.SpeakerID = 100 }, "speaker id 100"},
		{"speaker id beyond vocab", func(r *Request) { r.SpeakerID = 3072 }, "speaker id 3072"},
		{"layout", func(r *Request) { r.Layout = 7 }, "layout 7"},
		{"talker temperature", func(r *Request) { r.Talker.Temperature = -1 }, "talker: sampler: temperature -1"},
		{"talker top_p", func(r *Request) { r.Talker.TopP = 1.5 }, "top_p 1.5"},
		{"predictor top_k", func(r *Request) { r.Predictor.TopK = -2 }, "predictor: sampler: top_k -2"},
		{"predictor penalty", func(r *Request) { r.Predictor.RepetitionPenalty = 1.1 }, "predictor: repetition_penalty 1.1"},
		{"talker eos", func(r *Request) { e := 5; r.Talker.EOSTokenID = &e }, "eos_token_id"},
		{"talker presence", func(r *Request) { r.Talker.PresencePenalty = 0.5 }, "presence_penalty"},
		{"max frames negative", func(r *Request) { r.MaxFrames = -1 }, "max_frames -1"},
		{"max frames too large", func(r *Request) { r.MaxFrames = 9000 }, "max_frames 9000 above max_new_tokens 8192"},
		{"min tokens above cap", func(r *Request) { r.MaxFrames = 3; r.Talker.MinTokens = 4 }, "min_tokens 4 above the frame cap 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRequest([]int32{1, 2, 3})
			r.ID = "x"
			c.edit(&r)
			err := r.validate(&ids, lim)
			if err == nil {
				t.Fatalf("accepted, want error containing %q", c.want)
			}
			if !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("error %v does not wrap ErrInvalidRequest", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestLimitsCap(t *testing.T) {
	l := DefaultLimits()
	for _, c := range []struct{ text, max, want int }{
		{1, 0, 64},       // floor
		{20, 0, 100},     // 5 per text token
		{5000, 0, 8192},  // max_new_tokens
		{3, 50, 50},      // explicit
		{3, 10000, 8192}, // explicit, clamped
	} {
		if got := l.Cap(c.text, c.max); got != c.want {
			t.Errorf("Cap(%d, %d) = %d, want %d", c.text, c.max, got, c.want)
		}
	}
}

func TestSpecialIDsValidate(t *testing.T) {
	ids := Qwen3TTSIDs()
	if err := ids.Validate(); err != nil {
		t.Fatal(err)
	}
	ids.CodecEos = 100
	if err := ids.Validate(); err == nil || !strings.Contains(err.Error(), "codec_eos 100") {
		t.Errorf("eos inside codebook: err = %v", err)
	}
}
