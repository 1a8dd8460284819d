package host

import (
	"context"
	"errors"
	"testing"

	"github.com/omni-tts/omni/core"
)

// TestWASIRefusesLive: a live-text request cannot cross to the guest (its
// text would never reach it): the WASI engine refuses it by name.
func TestWASIRefusesLive(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a WASI engine")
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{Model: "synth:tiny", Mode: WASI, MaxBatch: 1, Threads: 1, CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Request(core.TextInput{Text: "Hello.", Layout: "streaming"})
	if err != nil {
		t.Fatal(err)
	}
	r.Live, r.MaxFrames = true, 10
	if _, err := e.Submit(ctx, r); !errors.Is(err, core.ErrInvalidRequest) {
		t.Errorf("WASI Submit of a live request: %v, want ErrInvalidRequest", err)
	}
}
