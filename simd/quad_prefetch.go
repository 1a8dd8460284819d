package simd

import "github.com/klauspost/cpuid/v2"

// quadPrefetch says whether the one- and two-row kernels that read four
// panels at once (int8 gemmQ8x{1,2}P4AVX512VNNI, 4-bit
// gemmQ4x{1,2}P4AVX512VNNI) issue software prefetches, 1024 bytes ahead on
// each of their four weight streams. It is a property
// of the CPU, not of the level: measured with `omni bench kernels` (which
// reports the one-row GEMV both ways), a Zen 5 (AMD family 26) read 24–28
// GB/s on one thread without them and 30–34 with them, and a Zen 4 (AMD
// family 25) reads 0.88–0.97 of its floor without them and 0.76–0.81 with
// them, and its 4-bit quad kernels 0.74–0.91 without against 0.53–0.82
// with (RATIONALE.md, "Why do the quad kernels prefetch on some CPUs and
// not on others?"). CPUs not measured keep the prefetches, the choice made
// first. Set once at start-up; tests and the benchmark switch it with
// UseQuadPrefetch.
var quadPrefetch = prefersQuadPrefetch(cpuid.CPU.VendorID, cpuid.CPU.Family)

// prefersQuadPrefetch is the measured choice for a CPU vendor and family.
func prefersQuadPrefetch(v cpuid.Vendor, family int) bool {
	return !(v == cpuid.AMD && family == 25) // Zen 4 (Zen 3 has no AVX-512: never runs these kernels)
}

// QuadPrefetch reports whether the quad kernels prefetch on this CPU.
func QuadPrefetch() bool { return quadPrefetch }

// UseQuadPrefetch makes the quad kernels prefetch (on) or not and returns
// a func that restores the previous choice. The results are the same bits
// either way; only the speed differs. Like Use, it is for tests and
// benchmarks, never called during a pass.
func UseQuadPrefetch(on bool) (restore func()) {
	prev := quadPrefetch
	quadPrefetch = on
	return func() { quadPrefetch = prev }
}
