// Package sched is omni's edge policy: the rules that decide whether
// streaming TTS works on a small machine.
//
//   - KV geometry and admission without preemption: bytes per token, bytes
//     for N sequences with block rounding, the most sequences a KV budget
//     holds (kv.go, admission.go);
//   - the memory budget and max_num_seqs (budget.go, class.go): a budget
//     too small for one sequence is an error with the numbers, never an
//     admission;
//   - playback slack and the prefill-throttle decision (slack.go), pure
//     functions the engine calls every step;
//   - chunk schedules: the fixed ramp, the adaptive controller and the
//     calibration from one measured request (ramp.go, adaptive.go,
//     calibrate.go), cached per hardware and model (calibcache.go);
//   - the hardware probe (hwprobe*.go) over an injectable file system root;
//   - deploy profiles (profile*.go): built-in edge and auto, user files,
//     explicit overrides, and the thread split between the model stage and
//     the codec stage (threads.go).
//
// sched imports the standard library, stats, golang.org/x/sys/cpu and
// github.com/klauspost/cpuid/v2 (for the probe) and builds for GOOS=wasip1.
package sched
