// Package deploy is the host-facing half of omni's deploy policy: it
// probes this machine (OMNI_HW_PROFILE, or /proc and /sys with cpuid and
// golang.org/x/sys/cpu, hwprobe_host.go), finds user profiles in the user
// config directory (resolve.go), keeps the chunk-schedule calibration in a
// cache keyed by a sha1 fingerprint of hardware and model (calibcache.go),
// and resolves a sched.Profile from all of them (Resolve).
//
// The rules themselves are package sched, pure and portable; deploy is
// imported by the omni binary and never by the engine, so the WASI guest
// links none of this (RATIONALE.md, "Why is deploy apart from sched?").
package deploy
