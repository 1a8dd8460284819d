package wasm

import (
	"fmt"
	"slices"

	"github.com/omni-tts/omni/wasm/abi"
)

// Replay runs load (the same loading code the host ran natively) with the
// backend answering every object-creating call from log, in order, and
// skipping every other call. It fails if a call asks for an object other
// than the one the host made, or if load leaves part of log unused.
func (b *Backend) Replay(log []abi.Created, load func() error) error {
	if b.replaying {
		return fmt.Errorf("wasm: replay already running")
	}
	b.replay, b.replaying = log, true
	err := load()
	left := len(b.replay)
	b.replay, b.replaying = nil, false
	if err != nil {
		return fmt.Errorf("wasm: replay of the host's load: %w", err)
	}
	if left != 0 {
		return fmt.Errorf("wasm: replay left %d of %d host handles unclaimed", left, len(log))
	}
	return nil
}

// next returns the handle of the next logged object if it is want.
func (b *Backend) next(want abi.Created) (int32, error) {
	if len(b.replay) == 0 {
		return -1, fmt.Errorf("wasm: replay: guest asked for a %v %v the host did not make", want.Kind, want.Dims)
	}
	got := b.replay[0]
	if got.Kind != want.Kind || !slices.Equal(got.Dims, want.Dims) || got.Prec != want.Prec || got.Bias != want.Bias || got.Theta != want.Theta {
		return -1, fmt.Errorf("wasm: replay: guest asked for %+v, host made %+v", want, got)
	}
	b.replay = b.replay[1:]
	return got.Handle, nil
}
