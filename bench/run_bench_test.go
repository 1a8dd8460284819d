package bench

import (
	"context"
	"os"
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
)

// BenchmarkE2E runs RunE2E's workload (2 streams × 8 frames) in each
// mode and reports its ms_per_frame, the one definition both modes share.
// The model is synth:tiny, or OMNI_E2E_MODEL (e.g. synth:0.6b); for the
// figures of a real run, native and WASI stepped in lockstep, use
// "omni bench e2e --wasm".
func BenchmarkE2E(b *testing.B) {
	spec := os.Getenv("OMNI_E2E_MODEL")
	if spec == "" {
		spec = "synth:tiny"
	}
	ctx := context.Background()
	for _, mode := range []host.Mode{host.Native, host.WASI} {
		b.Run(mode.String(), func(b *testing.B) {
			e, err := host.Open(ctx, host.Options{Model: spec, Mode: mode, MaxBatch: 2, Threads: 1,
				Engine: core.Config{Throttle: core.Throttle{Disabled: true}}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			b.ResetTimer()
			var ms, calls float64
			for i := 0; i < b.N; i++ {
				r, err := RunE2E(ctx, e, 2, 8, 8)
				if err != nil {
					b.Fatal(err)
				}
				ms += r.MSPerFrame
				calls += r.HostCallsPerFrame
			}
			b.ReportMetric(ms/float64(b.N), "ms/frame")
			b.ReportMetric(calls/float64(b.N), "hostcalls/frame")
		})
	}
}
