package simd

import (
	"runtime"
	"strconv"
	"testing"
)

// benchLevels runs a sub-benchmark per level and size, named
// "<level>/n=<n>", with the level forced: f sets up and returns the op to
// time. Besides ns/op it reports cpu-ns/op, the thread's CPU time per op
// (see vecThreadCPU), which is far less noisy on a shared machine.
func benchLevels(b *testing.B, sizes []int, f func(b *testing.B, n int) (op func())) {
	eachLevel(b, func(b *testing.B) {
		for _, n := range sizes {
			b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				op := f(b, n)
				t0 := vecThreadCPU()
				for b.Loop() {
					op()
				}
				if t1 := vecThreadCPU(); t0 >= 0 && t1 >= 0 && b.N > 0 {
					b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	benchLevels(b, []int{1024, 2048}, func(b *testing.B, n int) func() {
		x, y := make([]float32, n), make([]float32, n)
		b.SetBytes(int64(12 * n))
		return func() {
			Add(y, x)
		}
	})
}

func BenchmarkDot(b *testing.B) {
	benchLevels(b, []int{128, 1024}, func(b *testing.B, n int) func() {
		rng := vecRNG(1)
		x, y := vecRandBuf(rng, n, 0, 1).s(), vecRandBuf(rng, n, 0, 1).s()
		b.SetBytes(int64(8 * n))
		return func() {
			dotSink += Dot(x, y)
		}
	})
}

// dotSink keeps the benchmarked Dot from being optimised away.
var dotSink float32
