// Package sched is omni's edge policy: the rules that decide whether
// streaming TTS works on a small machine, as pure functions of their
// inputs.
//
//   - KV geometry and admission without preemption: bytes per token, bytes
//     for N sequences with block rounding, the most sequences a KV budget
//     holds (kv.go, admission.go);
//   - playback slack and the prefill-throttle decision (slack.go), pure
//     functions the engine calls every step;
//   - chunk schedules: the fixed ramp, the adaptive controller and the
//     calibration from one measured request (ramp.go, adaptive.go,
//     calibrate.go).
//
// What sizes a deployment — the hardware profile and its probe, the
// hardware classes, the memory budget and max_num_seqs, deploy profiles,
// the thread split, the user's profile directory and the calibration
// cache — is package deploy, used only by the omni binary.
// sched imports the standard library only, so the WASI guest
// links policy and nothing else (a test checks it).
package sched
