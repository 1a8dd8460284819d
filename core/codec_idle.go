package core

// pickThreads sets the threads of the codec's next graph pass (the codec
// model's pass hook, set by New, calls it before every pass): all of its
// backend's while generation waits (no stream generating, or the step loop
// blocked on a full hop), busyThreads while it runs. On two cores the
// stage runs one thread beside generation's two; when generation stops
// (the end of the last streams, a burst of finished chunks) the decoder
// would otherwise leave a core idle for the whole tail (RATIONALE.md,
// "Why does the codec stage take every core while generation waits?").
func (st *codecStage) pickThreads() {
	if st.busyThreads <= 0 || st.genIdle == nil {
		return
	}
	n := st.busyThreads
	if st.genIdle.Load() {
		n = 0
	}
	st.m.SetThreads(n)
}

// busy reports to the host that a decode call starts (true) or ended
// (false), on the codec goroutine (Config.CodecBusy).
func (st *codecStage) busy(on bool) {
	if st.onBusy != nil {
		st.onBusy(on)
	}
}
