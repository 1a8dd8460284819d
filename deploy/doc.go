// Package deploy is the host-facing half of omni's deploy policy: the
// hardware profile and its probe over an injectable file system root
// (hwprobe.go; this machine's through OMNI_HW_PROFILE, or /proc and /sys
// with cpuid and golang.org/x/sys/cpu, hwprobe_host.go), the hardware
// classes and their defaults (class.go), the memory budget and
// max_num_seqs, a budget too small for one sequence an error with the
// numbers (budget.go), deploy profiles and their validation (profile.go),
// the model/codec thread split (threads.go); it finds user profiles in the user
// config directory (resolve.go), keeps the chunk-schedule calibration in a
// cache keyed by a sha1 fingerprint of hardware and model (calibcache.go),
// and resolves a Profile from all of them (Resolve).
//
// The rules themselves are package sched, pure and portable; deploy is
// imported by the omni binary and never by the engine, so the WASI guest
// links none of this (RATIONALE.md, "Why is deploy apart from sched?").
package deploy
