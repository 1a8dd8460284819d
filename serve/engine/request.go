package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/serve"
)

// servable refuses req when the engine has stopped (Health) or req names
// another task_type than the model's.
func (s *Synthesizer) servable(req serve.SpeechRequest) error {
	if err := s.Health(); err != nil {
		return err
	}
	if req.TaskType != "" && req.TaskType != s.info.ModelType {
		return &serve.FieldError{Field: "task_type", Msg: fmt.Sprintf("%q: the model serves %s", req.TaskType, s.info.ModelType)}
	}
	return nil
}

// engineRequest is the engine's request for in's text (and layout) as
// req asks, the one way Start, StartLive and a long input's segments
// build theirs: req's voice, language and instructions set on in, its
// voice reference (cloneInput), the text tokenized by the model and req's
// overrides applied (applyOverrides). A refusal of the text names its
// field (requestError), its message prefixed with where unless where is
// empty (a long input names the segment). It returns the text input too:
// StartLive tokenizes the words fed later with it.
func (s *Synthesizer) engineRequest(req serve.SpeechRequest, in core.TextInput, where string) (core.Request, core.TextInput, error) {
	in.Language, in.Speaker, in.Instruct = req.Language, req.Voice, req.Instructions
	in, err := cloneInput(in, req)
	if err != nil {
		return core.Request{}, in, err
	}
	r, err := s.e.Request(in)
	if err != nil {
		err = requestError(err)
		if fe := (*serve.FieldError)(nil); where != "" && errors.As(err, &fe) {
			fe.Msg = where + ": " + fe.Msg
		}
		return core.Request{}, in, err
	}
	if err := applyOverrides(&r, req); err != nil {
		return core.Request{}, in, err
	}
	return r, in, nil
}

// applyOverrides sets a request's overrides on r, for a plain request and
// for each segment of a long one alike: max_new_tokens (refused, naming
// the field, below the model's min_tokens), one seed (the talker's
// generator takes it, the predictor's its successor: two independent
// streams, as the CLI), temperature, top_p, top_k, repetition_penalty.
func applyOverrides(r *core.Request, req serve.SpeechRequest) error {
	if req.MaxNewTokens > 0 {
		if req.MaxNewTokens < r.Talker.MinTokens {
			return &serve.FieldError{Field: "max_new_tokens", Msg: fmt.Sprintf(
				"%d is below the model's min_tokens %d (end of speech is masked for the first %d frames)",
				req.MaxNewTokens, r.Talker.MinTokens, r.Talker.MinTokens)}
		}
		r.MaxFrames = req.MaxNewTokens
	}
	if req.Seed != nil {
		t, p := int64(*req.Seed), int64(*req.Seed+1)
		r.Talker.Seed, r.Predictor.Seed = &t, &p
	}
	if req.Temperature != nil {
		r.Talker.Temperature, r.Predictor.Temperature = *req.Temperature, *req.Temperature
	}
	if req.TopP != nil {
		r.Talker.TopP, r.Predictor.TopP = *req.TopP, *req.TopP
	}
	if req.TopK != nil {
		r.Talker.TopK, r.Predictor.TopK = *req.TopK, *req.TopK
	}
	if req.RepetitionPenalty != nil {
		r.Talker.RepetitionPenalty = *req.RepetitionPenalty
	}
	return nil
}

// requestError maps a refusal of the text request to the field it names.
func requestError(err error) error {
	msg := err.Error()
	for _, f := range []struct{ core, api string }{
		{"field text", "input"}, {"field instruct", "instructions"}, {"field language", "language"},
		{"field speaker", "voice"}, {"field layout", "input"}, {"field ref_text", "ref_text"}, {"field clone", "voice"},
	} {
		if strings.Contains(msg, f.core) {
			return &serve.FieldError{Field: f.api, Msg: msg}
		}
	}
	if errors.Is(err, core.ErrInvalidRequest) {
		return &serve.FieldError{Field: "input", Msg: msg}
	}
	return err
}
