//go:build linux

package bench

import "golang.org/x/sys/unix"

// ProcessCPUMs returns the process's user+system CPU time in ms (0 when
// unavailable).
func ProcessCPUMs() float64 {
	var r unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	ms := func(t unix.Timeval) float64 { return float64(t.Sec)*1e3 + float64(t.Usec)/1e3 }
	return ms(r.Utime) + ms(r.Stime)
}
