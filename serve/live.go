package serve

import "context"

// LiveSynthesizer is a Synthesizer that also takes a request's text while
// it speaks (the WebSocket's split_granularity "token"): the text enters
// the running generation as it arrives. The engine adapter (serve/engine)
// implements it; a Synthesizer that does not is refused "token" by name.
type LiveSynthesizer interface {
	Synthesizer
	// StartLive admits a request whose Input holds the first words, as
	// Start does (it returns at admission; serve counts and bounds the
	// callers inside it as waiting); more text follows through the
	// stream's Feed, and End closes the text.
	StartLive(ctx context.Context, req SpeechRequest) (LiveStream, error)
}

// LiveStream is a live request's audio and its text input. Feed and End
// are called by one goroutine (not necessarily Next's).
type LiveStream interface {
	AudioStream
	// Feed adds text (whole words: a word split across calls may be
	// tokenized differently).
	Feed(text string) error
	// End closes the text: the speech may end after it.
	End()
}
