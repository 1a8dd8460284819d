package host

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/omni-tts/omni/core"
)

// TestBenchE2EReport is a manual measurement, run with
// OMNI_E2E_MODEL=synth:0.6b go test -run BenchE2EReport -v ./host/
// (it compares the two modes in one process; it asserts no timing).
func TestBenchE2EReport(t *testing.T) {
	spec := os.Getenv("OMNI_E2E_MODEL")
	if spec == "" {
		t.Skip("set OMNI_E2E_MODEL (e.g. synth:0.6b) to measure native vs WASI ms_per_frame")
	}
	frames, _ := strconv.Atoi(os.Getenv("OMNI_E2E_FRAMES"))
	if frames == 0 {
		frames = 16
	}
	for _, streams := range []int{1, 8} {
		for _, m := range []Mode{Native, WASI} {
			e, err := Open(context.Background(), Options{Model: spec, Mode: m, MaxBatch: streams, Engine: core.Config{Throttle: core.Throttle{Disabled: true}}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := BenchE2E(context.Background(), e, streams, frames, 8)
			e.Close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", r)
		}
	}
}
