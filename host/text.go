package host

import (
	"errors"
	"fmt"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/text"
)

// texter builds requests from text for one model: its tokenizer (the
// checkpoint's, or the built-in Qwen3-TTS one for a synth: model, a
// checkpoint without tokenizer files or an engine opened from a Source
// alone) and its special ids. Both modes tokenize on the host and send
// ids: the guest never sees text.
type texter struct {
	ids core.SpecialIDs
	tk  *text.Tokenizer
}

// newTexter loads the tokenizer of the resolved model f (nil: the
// built-in one) for a model of cfg. Open calls it once, so that no request
// pays for the load.
func newTexter(f *ModelFiles, cfg *predictor.Config) (*texter, error) {
	t := &texter{ids: core.IDsFromConfig(cfg)}
	var err error
	if f == nil || f.Tokenizer == "" {
		t.tk, err = text.Builtin()
	} else if t.tk, err = text.Load(f.Tokenizer); errors.Is(err, text.ErrNoTokenizer) {
		t.tk, err = text.Builtin()
	}
	if err != nil {
		name := "the built-in model"
		if f != nil {
			name = f.Spec.String()
		}
		return nil, fmt.Errorf("host: tokenizer of %s: %w", name, err)
	}
	return t, nil
}

// Request implements Engine.Request.
func (t *texter) Request(in core.TextInput) (core.Request, error) {
	return t.ids.TextRequest(t.tk, in)
}

// IDs implements Engine.IDs.
func (t *texter) IDs() core.SpecialIDs { return t.ids }
