// Package sched is omni's edge policy: the rules that decide whether
// streaming TTS works on a small machine, as pure functions of their
// inputs.
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
//     calibrate.go);
//   - the hardware profile and its probe over an injectable file system
//     root (hwprobe.go), deploy profiles and their validation (profile.go),
//     and the thread split between the model stage and the codec stage
//     (threads.go).
//
// What touches the machine — probing this host's CPU, reading the user's
// profile directory, the calibration cache files — is package deploy.
// sched imports the standard library only, so the WASI guest
// links policy and nothing else (a test checks it).
package sched
