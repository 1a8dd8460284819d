package engine

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/serve"
)

// StartLive implements serve.LiveSynthesizer: a core live request
// (Request.Live, the streaming layout whatever the model's default) of
// the first words, with Start's overrides, capped at max_new_tokens
// (default: the served maximum). Like Start it returns once the engine
// has admitted it. An engine that takes no live text (the WASI guest)
// refuses it by name.
func (s *Synthesizer) StartLive(ctx context.Context, req serve.SpeechRequest) (serve.LiveStream, error) {
	if err := s.servable(req); err != nil {
		return nil, err
	}
	r, in, err := s.engineRequest(req, core.TextInput{Text: req.Input, Layout: "streaming"}, "")
	if err != nil {
		return nil, err
	}
	if r.MaxFrames == 0 {
		r.MaxFrames = s.info.MaxNewTokens
	}
	r.Live = true
	st, err := s.submit(ctx, r)
	if err != nil {
		return nil, err
	}
	// Feed needs only the text's ids: the instruction and the voice
	// reference, checked and tokenized once above, are not built again for
	// every word.
	in.Instruct, in.Clone, in.RefText = "", nil, ""
	return &engineLive{engineStream: st, in: in}, nil
}

// engineLive is an engine stream taking live text.
type engineLive struct {
	*engineStream
	in core.TextInput
}

// Feed implements serve.LiveStream: the text tokenized by the model's
// tokenizer (as the prompt's text is), its ids fed to the stream.
func (l *engineLive) Feed(text string) error {
	if text == "" {
		return nil
	}
	in := l.in
	in.Text = text
	r, err := l.syn.e.Request(in)
	if err != nil {
		return requestError(err)
	}
	if err := l.s.FeedText(r.TextIDs); err != nil {
		return fmt.Errorf("serve/engine: live text: %w", err)
	}
	l.mu.Lock()
	l.input += len(r.TextIDs)
	l.mu.Unlock()
	return nil
}

// End implements serve.LiveStream.
func (l *engineLive) End() { l.s.EndText() }
