//go:build linux

package simd

import "golang.org/x/sys/unix"

// vecThreadCPU returns this thread's CPU time in nanoseconds (the caller
// locks the goroutine to its thread), or -1 when it cannot be read. The
// shared test machine is busy, so wall-clock ns/op includes time spent
// descheduled; benchmarks also report cpu-ns/op from this clock.
func vecThreadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}
