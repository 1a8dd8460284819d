package host

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/omni-tts/omni/core"
)

func TestStartJoinsAndReportsTheLoop(t *testing.T) {
	boom := errors.New("boom")
	var failed error
	stop := start(context.Background(), func(context.Context) error { return boom }, func(err error) { failed = err })
	if err := stop(); !errors.Is(err, boom) || !errors.Is(failed, boom) {
		t.Fatalf("failed loop: stop() = %v, fail got %v; want boom for both", err, failed)
	}
	if err := stop(); !errors.Is(err, boom) {
		t.Fatalf("second stop() = %v, want boom again", err)
	}

	stop = start(context.Background(), func(context.Context) error { panic("kaboom") }, func(error) {})
	var pe *PanicError
	if err := stop(); !errors.As(err, &pe) || pe.Value != "kaboom" {
		t.Fatalf("panicking loop: stop() = %v, want a *PanicError", err)
	}

	exited := false
	stop = start(context.Background(), func(ctx context.Context) error {
		<-ctx.Done()
		exited = true
		return ctx.Err()
	}, func(error) { t.Error("a stopped loop is not a failure") })
	if err := stop(); err != nil || !exited {
		t.Fatalf("stopped loop: stop() = %v, loop returned %v; want nil after the loop returned", err, exited)
	}
}

func TestEngineStartRunsAStream(t *testing.T) {
	for _, mode := range []Mode{Native, WASI} {
		t.Run(mode.String(), func(t *testing.T) {
			e, err := Open(context.Background(), Options{Model: "synth:tiny", Mode: mode, MaxBatch: 1, Threads: 1, Codec: CodecSettings{Off: true}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			stop := e.Start(context.Background())
			s, err := e.Submit(context.Background(), seededRequests(1, 3)[0])
			if err != nil {
				t.Fatal(err)
			}
			frames := 0
			for {
				ev, err := s.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == core.EventFrame {
					frames++
				}
			}
			if err := stop(); err != nil || frames != 3 {
				t.Fatalf("stop() = %v after %d frames, want nil after 3", err, frames)
			}
		})
	}
}
