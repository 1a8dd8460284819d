package engine_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
)

// TestEngineCancelAnyMoment hammers the adapter's Next, Close and Result
// from separate goroutines (run it under -race): streams closed before
// their first read, after k chunks, and while a reader waits in Next all
// end without a panic, Next ends with io.EOF or context.Canceled, Result
// never reports more frames than were read, and the engine is left with no
// stream, KV or decoder.
func TestEngineCancelAnyMoment(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny", MaxBatch: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { defer close(ran); e.Run(ctx) }()
	defer func() {
		cancel()
		<-ran
		e.Close()
	}()
	syn, err := engine.New(e, engine.Options{Name: "omni", MaxNewTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		st, err := syn.Start(context.Background(), serve.SpeechRequest{Input: "Cancel me at any moment.", Voice: syn.Info().Voices[0].Name, MaxNewTokens: 64})
		if err != nil {
			t.Fatal(err)
		}
		closeAfter := i % 4 // chunks read before Close (3: Close while the reader waits)
		read := make(chan int, 64)
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer close(read)
			frames := 0
			for {
				c, err := st.Next(context.Background())
				if err != nil {
					if err != io.EOF && !errors.Is(err, context.Canceled) {
						t.Errorf("stream %d: Next: %v, want io.EOF or context.Canceled", i, err)
					}
					if r := st.Result(); r.Frames > frames {
						t.Errorf("stream %d: Result reports %d frames, %d were read", i, r.Frames, frames)
					}
					return
				}
				frames += c.Frames
				read <- frames
			}
		}()
		go func() {
			defer wg.Done()
			for range closeAfter {
				if _, ok := <-read; !ok {
					break
				}
				_ = st.Result()
			}
			st.Close()
			st.Close() // twice: no panic
			for range read {
			}
		}()
	}
	wg.Wait()
	waitIdle(t, e)
}
