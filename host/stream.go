package host

import (
	"errors"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/wasm/abi"
)

// wasiStream is the host side of a stream running in the guest: a
// core.Feed filling the core.Stream the caller reads, and whether its
// cancellation was forwarded to the guest.
type wasiStream struct {
	feed       *core.Feed
	cancelSent bool // owned by the step goroutine
	held       bool // the guest holds its chunks (its reader is over the bound)
}

// event converts a guest event to the core.Event it stands for.
func event(w *abi.Event) core.Event {
	ev := core.Event{Kind: core.EventKind(w.Kind)}
	switch ev.Kind {
	case core.EventFrame:
		ev.Frame = core.Frame{Index: w.Index, Codes: w.Codes, At: time.Duration(w.At), Step: w.Step}
	case core.EventChunk:
		ev.Chunk = core.Chunk{Index: w.Index, First: w.First, Frames: w.Frames, LeftContext: w.LeftContext, Final: w.Final,
			ReadyAt: time.Duration(w.ReadyAt), PutAt: time.Duration(w.PutAt), GotAt: time.Duration(w.GotAt), DecodedAt: time.Duration(w.DecodedAt)}
	case core.EventEnd:
		var err error
		if w.Err != "" {
			err = errors.New(w.Err)
		}
		ev.End = core.End{Reason: core.EndReason(w.Reason), Err: err, Frames: w.Index, Cap: w.Cap}
	}
	return ev
}
