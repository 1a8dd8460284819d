// Package stats records step statistics: named counters of millisecond
// samples (count, sum, max and a bounded reservoir for percentiles), dumped
// per process as <dir>/<role>_<pid>.json, merged across processes and
// attributed against the 80 ms budget of one Qwen3-TTS codec frame.
//
// A Recorder is a value: Open or New builds one (the omni binary from
// --stats-dir or OMNI_STEP_STATS_DIR). A nil *Recorder (what New returns
// for an empty directory) is the disabled recorder: every method on it,
// on the nil *Counter it hands out and on the zero Timer is a no-op that
// neither allocates nor reads the clock. Hot paths resolve a *Counter once
// and call Add or Start/Stop on it:
//
//	c := r.Counter("predictor.substep_ms")
//	for ... {
//		t := c.Start()
//		...
//		t.Stop()
//	}
//
// The dump layout (role, pid, started_at, dumped_at, counters → summaries)
// is the original system's, so Merge folds dumps written by either system.
//
// stats imports only the standard library and builds for GOOS=wasip1.
package stats
