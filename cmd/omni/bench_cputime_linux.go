//go:build linux

package main

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// benchProcessCPU returns the process's user+system CPU time in ms (0 when
// unavailable): the encoder benches' CPU-time efficiency, which a shared
// machine's other tenants disturb less than the wall clock.
func benchProcessCPU() float64 {
	var r unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	ms := func(t unix.Timeval) float64 { return float64(t.Sec)*1e3 + float64(t.Usec)/1e3 }
	return ms(r.Utime) + ms(r.Stime)
}

// benchLoadAverage returns the first three fields of /proc/loadavg ("" when
// unreadable): a figure measured on a shared machine says its load.
func benchLoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
