//go:build linux

package bench

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's user+system CPU time in µs and
// whether it is available; the caller must hold runtime.LockOSThread.
func threadCPU() (float64, bool) {
	var r unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &r); err != nil {
		return 0, false
	}
	us := func(t unix.Timeval) float64 { return float64(t.Sec)*1e6 + float64(t.Usec) }
	return us(r.Utime) + us(r.Stime), true
}

// lockThread pins the goroutine to its thread for threadCPU.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
