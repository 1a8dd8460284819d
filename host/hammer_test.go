package host

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/omni-tts/omni/core"
)

// TestWASIConcurrentSubmit submits from several goroutines while Run steps
// the engine and cancels some streams midway: every stream must end, the
// uncancelled ones with all their frames.
func TestWASIConcurrentSubmit(t *testing.T) {
	e, err := Open(context.Background(), Options{Model: "synth:tiny", Mode: WASI, MaxBatch: 4, Threads: 1,
		Engine: core.Config{Throttle: core.Throttle{Disabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3; i++ {
				r := seededRequests(1, 4)[0]
				r.ID = fmt.Sprintf("g%d-%d", g, i)
				r.Talker.MinTokens = 4
				rctx, cancel := context.WithCancel(context.Background())
				s, err := e.Submit(rctx, r)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				if i == 1 {
					cancel() // may land before, during or after generation
				}
				end, err := s.Wait(context.Background())
				cancel()
				if err != nil {
					errs <- err
					return
				}
				if i != 1 && (end.Reason != core.EndLength || len(s.Codes()) != 4) {
					errs <- fmt.Errorf("stream %s ended %v with %d frames", r.ID, end.Reason, len(s.Codes()))
				}
			}
		}()
	}
	wg.Wait()
	stop()
	<-ran
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
