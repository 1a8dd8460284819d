//go:build !linux

package main

// benchProcessCPU returns 0: no process CPU time here.
func benchProcessCPU() float64 { return 0 }

// benchLoadAverage returns "": no /proc/loadavg here.
func benchLoadAverage() string { return "" }
