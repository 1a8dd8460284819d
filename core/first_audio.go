package core

import "time"

// firstAudioWaitLimit bounds how long generation waits for first audio; the
// wait ends sooner in every case it is meant for (the chunks are decoded,
// or dropped when their stream is cancelled or the engine closes), so the
// limit only guards against a first chunk parked for a reason not foreseen.
const firstAudioWaitLimit = 2 * time.Second

// firstAudioStreams collects, into e.firstWaits, the streams whose first
// chunk (with frames) is among the chunks about to be handed to the codec
// stage, when generation should wait for their audio: the engine has a
// codec goroutine, Config.GenerateDuringFirstDecode is off, and no running
// stream is playing yet (a stream already playing would lose the time the
// wait takes from its buffer). Streams that follow another (their chunks
// wait for their predecessor) or are held are left out: their chunks may
// park.
func (e *Engine) firstAudioStreams() []*Stream {
	w := e.firstWaits[:0]
	if e.hop.stage == nil || e.hop.inline || e.cfg.GenerateDuringFirstDecode {
		return w
	}
	for _, c := range e.chunks {
		s := c.Stream
		if c.Index == 0 && c.Frames > 0 && s.req.Follows == nil && !s.held.Load() {
			w = append(w, s)
		}
	}
	if len(w) == 0 {
		return w
	}
	now := e.now()
	for _, s := range e.running {
		if _, started := s.slack(now); started {
			clear(w)
			return w[:0]
		}
	}
	return w
}

// awaitFirstAudio blocks generation until every stream in ss has audio
// (or firstAudioWaitLimit passes, or the stage closes). Generation counts
// as idle meanwhile, so the codec stage decodes on all of its threads.
func (h *hop) awaitFirstAudio(ss []*Stream) {
	if len(ss) == 0 || allStarted(ss, h.now()) {
		return
	}
	h.genIdle.Store(true)
	defer h.genIdle.Store(false)
	limit := time.NewTimer(firstAudioWaitLimit)
	defer limit.Stop()
	for !allStarted(ss, h.now()) {
		select {
		case <-h.arrivedSig:
		case <-h.closed:
			return
		case <-limit.C:
			return
		}
	}
}

// allStarted reports whether every stream in ss has received audio.
func allStarted(ss []*Stream, now time.Duration) bool {
	for _, s := range ss {
		if _, started := s.slack(now); !started {
			return false
		}
	}
	return true
}
