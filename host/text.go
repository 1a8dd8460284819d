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

// textLoad is a tokenizer loading on its own goroutine while Open loads
// the weights (the built-in vocabulary alone takes some 0.3 s, a third of
// a warm start); get waits for it. A nil textLoad gets nothing.
type textLoad struct {
	done chan struct{}
	t    *texter
	err  error
}

// loadText starts newTexter(f, cfg) on its own goroutine.
func loadText(f *ModelFiles, cfg *predictor.Config) *textLoad {
	l := &textLoad{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.t, l.err = newTexter(f, cfg)
	}()
	return l
}

// get waits for the load and returns its tokenizer; (nil, nil) for a nil
// textLoad (an engine built without Open).
func (l *textLoad) get() (*texter, error) {
	if l == nil {
		return nil, nil
	}
	<-l.done
	return l.t, l.err
}

// Request implements Engine.Request.
func (t *texter) Request(in core.TextInput) (core.Request, error) {
	return t.ids.TextRequest(t.tk, in)
}

// IDs implements Engine.IDs.
func (t *texter) IDs() core.SpecialIDs { return t.ids }
