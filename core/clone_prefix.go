package core

import "fmt"

// primeFrames is the most reference frames one priming decode call takes:
// it bounds the stage's scratch (primeFrames·SamplesPerFrame samples)
// whatever the reference's length. The codec's streaming decode gives the
// same samples for any split of the frames.
const primeFrames = 25

// prime decodes, unheard, the reference frames of s's in-context clone
// with s's fresh decoder state, before its first generated frame (all but
// the last codec.Model.LookbackFrames only through the layers up to the
// transformer, which gives the same state at a fraction of the cost): the
// decoder then continues from the reference as upstream's one-call decode
// of ref ‖ generated does, and the R·SamplesPerFrame reference samples
// upstream cuts from the front of its waveform are never delivered. It
// runs once per stream, on the codec goroutine, into the stage's reused
// scratch: as soon as the stream is admitted (primeEarly), or at its
// first chunk when that comes first. A stream following another
// (seam.go) adopts a primed state and is not primed again. With
// Config.ClonePrefixFrames = K > 0 only the last K reference frames are
// decoded. The primed state is kept (clone_primed.go): the next stream with
// the same reference copies it and decodes nothing.
func (st *codecStage) prime(s *Stream, now func() float64) error {
	c := s.req.Clone
	if !c.InContext() {
		return nil
	}
	R := c.RefFrames()
	first := 0
	if st.primeMax > 0 {
		first = max(0, R-st.primeMax)
	}
	t0 := now()
	cache := st.primed.usable(st.m)
	var key primedKey
	if cache {
		key = keyOf(c.RefCodes[first*Codebooks:])
		hit, err := st.primed.take(key, s.dec)
		if err != nil {
			return fmt.Errorf("core: request %q: copying a primed reference state: %w", s.req.ID, err)
		}
		if hit {
			st.primeHits.Add(1)
			st.primeMS.Add(now() - t0)
			return nil
		}
	}
	// Frames before the last LookbackFrames only advance the decoder (its
	// layers up to the transformer): the vocoder's state after the
	// reference depends on its last frames alone, so the state, and every
	// sample after it, is that of decoding them all (codec.Stream.Advance).
	decodeFrom := max(first, R-st.m.LookbackFrames())
	for f := first; f < R; {
		advance := f < decodeFrom
		n := min(primeFrames, R-f)
		if advance {
			n = min(n, decodeFrom-f)
		}
		if cap(st.primeCodes) < n {
			st.primeCodes = make([][Codebooks]int32, primeFrames)
		}
		codes := st.primeCodes[:n]
		for i := range codes {
			copy(codes[i][:], c.RefCodes[(f+i)*Codebooks:(f+i+1)*Codebooks])
		}
		st.busy(true)
		var err error
		if advance {
			err = s.dec.Advance(codes)
		} else {
			st.primePCM = grow(st.primePCM, n*st.spf)
			err = s.dec.Decode(codes, st.primePCM[:n*st.spf])
		}
		st.busy(false)
		if err != nil {
			return fmt.Errorf("core: request %q: priming with reference frames %d..%d: %w", s.req.ID, f, f+n-1, err)
		}
		f += n
	}
	if !cache {
		st.primeMS.Add(now() - t0)
		return nil
	}
	if err := st.primed.keep(st.m, key, s.dec); err != nil {
		return fmt.Errorf("core: request %q: keeping the primed reference state: %w", s.req.ID, err)
	}
	st.primeMS.Add(now() - t0)
	return nil
}

// primeQueue is the capacity of the hop's queue of streams to prime early;
// a stream that finds it full is primed at its first chunk instead.
const primeQueue = 16

// primeEarly asks the codec goroutine to prime s (an in-context clone just
// admitted) now, while the step loop prefills it and generates its first
// chunk, rather than at that chunk: the priming then overlaps the prefill
// instead of adding to the TTFA after it. It never blocks; inline engines
// (no codec goroutine), streams following another (their state is
// adopted, seam.go) and a full queue leave the priming to the first chunk.
func (h *hop) primeEarly(s *Stream) {
	if h.stage == nil || h.inline || !s.req.Clone.InContext() || s.req.Follows != nil {
		return
	}
	select {
	case h.prime <- s:
	default:
	}
}

// primeEarly gives s, on the codec goroutine, its decoder state primed
// with the reference frames, unless its first chunk came first (it has a
// state, or its state was already released) or it ended.
func (st *codecStage) primeEarly(s *Stream, now func() float64) {
	if s.dec != nil || s.codecEnded || s.isCancelled() || s.decErr != nil {
		return
	}
	_ = st.openDecoder(s, now) // an error is s's (decErr)
}
