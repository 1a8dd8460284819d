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
	env := func(k string, d int) int {
		if v, _ := strconv.Atoi(os.Getenv(k)); v > 0 {
			return v
		}
		return d
	}
	frames, reps, threads := env("OMNI_E2E_FRAMES", 16), env("OMNI_E2E_REPS", 3), env("OMNI_E2E_THREADS", 0)
	for _, streams := range []int{1, 8} {
		c, err := CompareE2E(context.Background(), Options{Model: spec, Threads: threads, Engine: core.Config{Throttle: core.Throttle{Disabled: true}}}, streams, frames, 8, 4, reps)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Native {
			t.Logf("streams %d run %d: native %.2f ms/frame, wasi %.2f ms/frame (%.2f in host functions, %.1f host calls/frame)", streams, i, c.Native[i].MSPerFrame, c.WASI[i].MSPerFrame, c.WASI[i].HostMSPerFrame, c.WASI[i].HostCallsPerFrame)
		}
		t.Logf("streams %d: guest accounting %+v", streams, c.Guest)
		t.Logf("streams %d: median native %.2f ms/frame, wasi %.2f ms/frame, ratio %.3f", streams, c.NativeMS, c.WASIMS, c.Ratio)
	}
}
