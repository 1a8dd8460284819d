package core

import "slices"

// Seams: the segments of a long text are separate streams (each its own
// prompt, KV cache, sampler and frame cap), but their audio is one: a
// stream submitted with Request.Follows decodes its frames with the codec
// decoder state its predecessor ended with (Request.KeepCodec), as if the
// frames of both were one utterance, so nothing restarts at the seam (no
// click, no fade-in of a fresh decoder). The handover happens on the codec
// stage's goroutine, which owns every decoder state: a successor's chunks
// wait (parked, as codes) until its predecessor's final chunk is decoded.

// waitsForPredecessor reports whether s's chunks must wait for the final
// chunk of the stream it follows.
func (st *codecStage) waitsForPredecessor(s *Stream) bool {
	p := s.req.Follows
	return p != nil && p.stage == st && !p.codecEnded && !p.isCancelled()
}

// adopt gives s, before its first decode, the decoder state its
// predecessor kept for it.
func (st *codecStage) adopt(s *Stream) {
	p := s.req.Follows
	if s.dec != nil || p == nil || p.stage != st || !p.kept {
		return
	}
	s.dec, p.dec, p.kept = p.dec, nil, false
	st.unkeep(p)
}

// release ends s's use of its decoder state at its final chunk: it keeps
// the state for a successor when s asked to (KeepCodec) and ended well,
// else frees it. A stream ending before the one it follows (cancelled)
// tells that one to free its state at its own end.
func (st *codecStage) release(s *Stream) {
	st.adopt(s)
	s.codecEnded = true
	if p := s.req.Follows; p != nil && p.stage == st && !p.codecEnded {
		p.orphan = true
	}
	if s.dec != nil && s.req.KeepCodec && !s.orphan && !s.isCancelled() && s.decErr == nil && !s.dropKept.Load() {
		s.kept = true
		st.kept = append(st.kept, s)
		st.handed = true
		return
	}
	s.closeDecoder()
}

// freeKept frees the kept states nobody will take: their stream was
// cancelled or released (Stream.ReleaseCodec), or the engine is closing.
func (st *codecStage) freeKept(all bool) {
	k := 0
	for _, s := range st.kept {
		if all || s.isCancelled() || s.dropKept.Load() {
			s.kept = false
			s.closeDecoder()
			continue
		}
		st.kept[k] = s
		k++
	}
	clear(st.kept[k:])
	st.kept = st.kept[:k]
}

// unkeep removes s from the kept list.
func (st *codecStage) unkeep(s *Stream) {
	for i, x := range st.kept {
		if x == s {
			st.kept = slices.Delete(st.kept, i, i+1) // zeroes the freed slot
			return
		}
	}
}

// ReleaseCodec frees the decoder state a stream submitted with KeepCodec
// keeps after its end when no successor will take it (the long-form driver
// calls it when it stops early). It is safe to call from any goroutine, at
// any time, more than once; without a codec it does nothing.
func (s *Stream) ReleaseCodec() {
	s.dropKept.Store(true)
	if s.stage != nil {
		s.stage.wakeUp()
	}
}
