package main

import (
	"fmt"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/serve/engine"
)

// longServeFlags are "omni serve"'s long-input flags. An input longer than
// one segment (some 25 s of speech) is synthesized as segments in one
// stream; --max-input (raise it, e.g. to 100000, with --max-body) admits
// it.
type longServeFlags struct {
	MaxReplyAudio float64 `name:"max-reply-audio" default:"0" help:"Bound a long input's whole reply to this many seconds of audio, 0..86400 (0 = none; max_new_tokens caps each segment); reaching it ends the reply with end reason max_tokens (${default})."`
}

// longOptions returns the engine adapter's options under the flags.
func (f *longServeFlags) longOptions(name string) (engine.Options, error) {
	if f.MaxReplyAudio < 0 || f.MaxReplyAudio > 86400 {
		return engine.Options{}, fmt.Errorf("serve: --max-reply-audio %g outside [0, 86400] seconds", f.MaxReplyAudio)
	}
	return engine.Options{Name: name, MaxReplyFrames: int(f.MaxReplyAudio * 1000 / core.FrameMS)}, nil
}
