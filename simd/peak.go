package simd

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// peakIters is the iterations of one assembly peak call (a few tens of µs,
// so the loop never holds off the garbage collector).
const peakIters = 1 << 14

// FMAPeak measures the fp32 FMA peak of this machine at the active level on
// threads threads (each a locked OS thread) for about d: every thread runs
// a register-only loop of independent FMA chains (16 zmm on AVX-512, 14
// ymm on AVX2), with no memory operands. It returns GFLOP/s (2 per lane per
// FMA): each thread's fastest ≈ 40 µs call (runPeak), summed over the
// threads. The generic level has no peak to measure: an error.
func FMAPeak(threads int, d time.Duration) (float64, error) {
	switch {
	case !haveAsm || active == Generic:
		return 0, fmt.Errorf("simd: FMAPeak: no assembly at level %s", active)
	case active == AVX512VNNI:
		return runPeak(threads, d, fmaPeakAVX512, 16*16*2)
	default:
		return runPeak(threads, d, fmaPeakAVX2, 14*8*2)
	}
}

// Int8Peak measures the int8 multiply-accumulate peak at the active level
// on threads threads for about d, in GMAC/s summed over the threads, and
// names the instruction sequence: "vpdpbusd" (AVX-512 VNNI, 16 zmm chains,
// 64 MACs per instruction) or "vpmaddubsw" (AVX2 without VNNI:
// VPMADDUBSW, VPMADDWD by ones, VPADDD, 32 MACs per three instructions, 5
// chains). The generic level: an error.
func Int8Peak(threads int, d time.Duration) (gmacs float64, how string, err error) {
	switch {
	case !haveAsm || active == Generic:
		return 0, "", fmt.Errorf("simd: Int8Peak: no assembly at level %s", active)
	case active == AVX512VNNI:
		r, err := runPeak(threads, d, vnniPeakAVX512, 16*64)
		return r, "vpdpbusd", err
	default:
		r, err := runPeak(threads, d, int8PeakAVX2, 5*32)
		return r, "vpmaddubsw", err
	}
}

// runPeak runs loop on threads locked threads for about d, in calls of
// peakIters iterations (≈ 40 µs), and returns the sum over the threads of
// each one's fastest call's rate in G ops per second (perIter ops per
// iteration): on a shared machine the fastest call is the one no other
// process interrupted.
func runPeak(threads int, d time.Duration, loop func(n int), perIter int) (float64, error) {
	if threads < 1 || threads > 1024 || d <= 0 || d > time.Minute {
		return 0, fmt.Errorf("simd: peak on %d threads for %v: want 1..1024 threads and (0, 1m]", threads, d)
	}
	rates := make([]float64, threads)
	var wg sync.WaitGroup
	var start sync.WaitGroup
	start.Add(1)
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			loop(peakIters) // warm up (clocks, the upper vector halves)
			start.Wait()
			t0 := time.Now()
			best := time.Duration(1<<63 - 1)
			for time.Since(t0) < d {
				c0 := time.Now()
				loop(peakIters)
				best = min(best, time.Since(c0))
			}
			rates[i] = peakIters * float64(perIter) / best.Seconds() / 1e9
		}()
	}
	start.Done()
	wg.Wait()
	var sum float64
	for _, r := range rates {
		sum += r
	}
	return sum, nil
}
