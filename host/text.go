package host

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/text"
)

// texter builds requests from text for one model: its tokenizer (the
// checkpoint's, or the built-in Qwen3-TTS one for a synth: model, a
// checkpoint without tokenizer files or an engine opened from a Source
// alone), loaded once, and its special ids. Both modes tokenize on the
// host and send ids: the guest never sees text.
type texter struct {
	model string
	ids   core.SpecialIDs

	once sync.Once
	tk   *text.Tokenizer
	err  error
}

// newTexter returns the texter of model spec (may be "") and cfg.
func newTexter(model string, cfg *predictor.Config) *texter {
	return &texter{model: model, ids: core.IDsFromConfig(cfg)}
}

// tokenizer loads the tokenizer on first use.
func (t *texter) tokenizer() (*text.Tokenizer, error) {
	t.once.Do(func() {
		dir := t.model
		if dir == "" || strings.HasPrefix(dir, "synth:") {
			t.tk, t.err = text.Builtin()
			return
		}
		if dir, _, t.err = hub.Resolve(dir); t.err != nil {
			t.err = fmt.Errorf("host: tokenizer of %s: %w", t.model, t.err)
			return
		}
		t.tk, t.err = text.Load(dir)
		if errors.Is(t.err, text.ErrNoTokenizer) {
			t.tk, t.err = text.Builtin()
		}
		if t.err != nil {
			t.err = fmt.Errorf("host: tokenizer of %s: %w", t.model, t.err)
		}
	})
	return t.tk, t.err
}

// Request implements Engine.Request.
func (t *texter) Request(in core.TextInput) (core.Request, error) {
	tk, err := t.tokenizer()
	if err != nil {
		return core.Request{}, err
	}
	return t.ids.TextRequest(tk, in)
}

// IDs implements Engine.IDs.
func (t *texter) IDs() core.SpecialIDs { return t.ids }
