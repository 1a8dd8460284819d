package core

import (
	"fmt"
	"slices"
	"strings"
)

// TextPrompter turns text into the ids a Qwen3-TTS prompt takes;
// *text.Tokenizer is one. core depends on this interface, not on package
// text.
type TextPrompter interface {
	// PromptIDs returns the role ids and the text ids of the upstream
	// wrapping "<|im_start|>assistant\n{text}<|im_end|>\n<|im_start|>assistant\n"
	// tokenized as one string, user text never matched as control tokens.
	PromptIDs(text string) (role [3]int32, ids []int32, err error)
	// InstructIDs returns the ids of "<|im_start|>user\n{instruct}<|im_end|>\n".
	InstructIDs(instruct string) ([]int32, error)
	// RefTextIDs returns the ids of a clone's reference transcript: those of
	// "<|im_start|>assistant\n{ref}<|im_end|>\n" without the 3 role ids and
	// the 2 closing ids.
	RefTextIDs(ref string) ([]int32, error)
}

// TextInput is a request given as text: what a user types at any surface.
type TextInput struct {
	Text     string // the words to speak; required
	Language string // a language of the model's table (any case), or "" / "auto"
	Speaker  string // a preset speaker of the model's table (any case), or ""
	Instruct string // an instruction (1.7B CustomVoice, VoiceDesign), or ""
	Layout   string // "streaming", "non-streaming", or "" for the model's default
	// Clone, when set, is a prepared voice reference (Base models only).
	// The request gets a copy whose RefTextIDs are RefText's ids (when
	// RefText is given; else the Clone's own, which in-context mode needs).
	Clone   *Clone
	RefText string // the reference transcript of an in-context Clone (ignored in x-vector mode)
}

// TakesInstruct reports whether a model of tts_model_type kind and
// tts_model_size size takes an instruction: VoiceDesign, and CustomVoice
// at 1.7B (upstream drops the 0.6B CustomVoice's instruction; omni refuses
// it).
func TakesInstruct(kind, size string) bool {
	return kind == "voice_design" || (kind == "custom_voice" && size == "1b7")
}

// DefaultLayout returns the upstream default layout of a model kind:
// non-streaming for custom_voice and voice_design, streaming otherwise
// (base, the voice-clone default).
func DefaultLayout(kind string) Layout {
	if kind == "custom_voice" || kind == "voice_design" {
		return NonStreaming
	}
	return Streaming
}

// TextRequest builds a request from text: in's fields checked against the
// model's ids (language and speaker case-insensitive; an unknown one's
// error lists the valid names; an instruction refused where the model takes
// none), the text and instruction tokenized by tp, the released sampling
// defaults. Every error names the field. Nothing is half-admitted: the
// request is returned only when BuildPrompt accepts it.
func (s *SpecialIDs) TextRequest(tp TextPrompter, in TextInput) (Request, error) {
	r := NewRequest(nil)
	r.Language, r.Speaker = in.Language, in.Speaker
	if strings.TrimSpace(in.Text) == "" {
		return Request{}, invalid("field text: empty (only white space)")
	}
	if in.Layout == "" {
		r.Layout = DefaultLayout(s.ModelKind)
	} else {
		l, err := ParseLayout(in.Layout)
		if err != nil {
			return Request{}, invalid("field layout: %v", err)
		}
		r.Layout = l
	}
	if in.Instruct != "" {
		if !s.TakesInstruct {
			return Request{}, invalid("field instruct: the model (%s) takes no instruction", orUnknown(s.ModelKind))
		}
		ids, err := tp.InstructIDs(in.Instruct)
		if err != nil {
			return Request{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		r.InstructIDs = ids
	}
	if _, err := r.languageID(s); err != nil {
		return Request{}, err
	}
	if in.Clone != nil {
		c, err := s.cloneInput(tp, in)
		if err != nil {
			return Request{}, err
		}
		r.Clone = c
	}
	if _, _, err := r.speakerRow(s); err != nil {
		return Request{}, err
	}
	role, ids, err := tp.PromptIDs(in.Text)
	if err != nil {
		return Request{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	r.TextIDs, r.RoleIDs = ids, role[:]
	p, err := BuildPrompt(&r, s)
	if err != nil {
		return Request{}, err
	}
	if n := len(p.Rows) + len(p.Trailing); s.Context > 0 && n >= s.Context {
		return Request{}, invalid("field text: %d prompt and text rows, the model's context holds %d positions", n, s.Context)
	}
	return r, nil
}

// cloneInput returns the request's copy of in.Clone with the reference
// transcript's ids, refusing by field what cloning cannot take.
func (s *SpecialIDs) cloneInput(tp TextPrompter, in TextInput) (*Clone, error) {
	if s.ModelKind != "base" {
		return nil, invalid("field clone: voice cloning needs a Base model, this one is %s", orUnknown(s.ModelKind))
	}
	if in.Speaker != "" {
		return nil, invalid("field speaker: a cloning request takes its voice from the reference, not a preset speaker (%q)", in.Speaker)
	}
	c := *in.Clone
	if !c.InContext() {
		return &c, nil
	}
	if strings.TrimSpace(in.RefText) == "" {
		if len(c.RefTextIDs) > 0 {
			return &c, nil
		}
		return nil, invalid("field ref_text: required with reference codes (in-context mode); give the clip's transcript or use x-vector mode")
	}
	ids, err := tp.RefTextIDs(in.RefText)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	c.RefTextIDs = ids
	return &c, nil
}

// validateTextParts checks the instruction and role ids against the model.
func (r *Request) validateTextParts(ids *SpecialIDs) error {
	if len(r.InstructIDs) > 0 && !ids.TakesInstruct {
		return invalid("request %q: field instruct: the model (%s) takes no instruction", r.ID, orUnknown(ids.ModelKind))
	}
	if r.RoleIDs != nil && len(r.RoleIDs) != 3 {
		return invalid("request %q: %d role ids, want 3", r.ID, len(r.RoleIDs))
	}
	for _, part := range []struct {
		name string
		v    []int32
	}{{"instruct", r.InstructIDs}, {"role", r.RoleIDs}} {
		for i, t := range part.v {
			if t < 0 || int(t) >= ids.TextVocab {
				return invalid("request %q: %s id [%d] = %d outside [0, %d)", r.ID, part.name, i, t, ids.TextVocab)
			}
		}
	}
	return nil
}

// names lists a table's names, sorted, comma-separated.
func names(m map[string]int32) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// languageNames lists the languages a request may name: the table's
// names but the dialects, sorted.
func languageNames(m map[string]int32) string {
	out := make([]string, 0, len(m))
	for k := range m {
		if !strings.Contains(k, "dialect") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// orUnknown returns kind, or "model type unknown" when empty.
func orUnknown(kind string) string {
	if kind == "" {
		return "model type unknown"
	}
	return kind
}
