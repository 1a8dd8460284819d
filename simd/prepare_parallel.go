package simd

import (
	"math"
	"runtime"
	"sync"
)

// This file makes preparing weights (a load, not a per-token pass) use every
// core: the work is split into independent ranges whose results do not
// depend on the split, so a parallel preparation is byte-identical to a
// serial one.

// parallelRanges runs f(lo, hi) over [0, n) split into at most
// GOMAXPROCS ranges of at least minChunk, on goroutines, and waits.
func parallelRanges(n, minChunk int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(minChunk, 1))
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+step, n))
	}
	wg.Wait()
}

// hadamardWeights is hadamardBlocks on all cores, for weights at load
// (never for activations: no goroutine inside a pass).
func hadamardWeights(x []float32, m, cols int) {
	n := rotWidth(cols)
	parallelRanges(m, 64, func(lo, hi int) { Hadamard(x[lo*cols:hi*cols], n) })
}

// firstNonFinite returns the index of the first NaN or ±Inf of v (-1:
// none): an exponent of all ones, checked on the bits.
func firstNonFinite(v []float32) int {
	for i, x := range v {
		if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
			return i
		}
	}
	return -1
}

// prepScratch returns the backend's preparation buffer resized to n values
// (reused from one matrix to the next, so a load does not fault in fresh
// pages for every matrix).
func (b *Backend) prepScratch(n int) []float32 {
	if cap(b.prep) < n {
		b.prep = make([]float32, n)
	}
	return b.prep[:n]
}
