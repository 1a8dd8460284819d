package core

import (
	"fmt"
	"sync/atomic"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/stats"
)

// DefaultMaxUnreadMS is the audio a stream may hold decoded and unread
// before the codec stage stops decoding it (Config.MaxUnreadMS).
const DefaultMaxUnreadMS = 20000

// codecStage decodes chunks into PCM on the hop's consumer goroutine: each
// stream has its own codec.Stream (created at its first chunk, closed at
// its final chunk or as soon as it is cancelled), and the chunks waiting
// together go through one DecodeBatch. A stream whose reader has more than
// maxUnread samples unread is parked: its chunks wait (codes only, 64 bytes
// a frame) until the reader catches up, so a slow reader slows its own
// audio and no one else's, and the PCM held per stream is bounded.
type codecStage struct {
	m         *codec.Model
	spf       int
	maxUnread int // samples; 0: no bound

	parked []*Chunk // chunks of parked streams, in arrival order
	resume chan struct{}

	// DecodeBatch arguments, reused
	streams []*codec.Stream
	codes   [][][Codebooks]int32
	pcm     [][]float32
	round   []*Chunk

	work, again []*Chunk // process's lists, reused

	kept   []*Stream // ended streams holding their decoder state for a successor (seam.go)
	handed bool      // a state was kept during this process call

	live atomic.Int64 // decoder states open

	primeMax   int                // most reference frames primed, 0 = all (Config.ClonePrefixFrames)
	primeCodes [][Codebooks]int32 // prime's scratch (clone_prefix.go)
	primePCM   []float32
	primed     primedCache // primed states kept for the next stream with the same reference

	busyThreads int          // threads while generation runs; 0: all (Config.CodecBusyThreads)
	genIdle     *atomic.Bool // the hop's: generation is waiting
	onBusy      func(bool)   // Config.CodecBusy
	load        codecLoad    // decode ms per frame, for the chunk controllers

	decodeMS, callMS, primeMS, primeHits *stats.Counter
}

// newCodecStage returns the stage for m; maxUnreadMS < 0 means no bound.
func newCodecStage(m *codec.Model, maxUnreadMS float64, rec *stats.Recorder) *codecStage {
	st := &codecStage{m: m, spf: m.SamplesPerFrame(), resume: make(chan struct{}, 1),
		decodeMS: rec.Counter("codec.decode_ms"), callMS: rec.Counter("codec.call_ms"),
		primeMS: rec.Counter("codec.ref_prefix_ms"), primeHits: rec.Counter("codec.ref_prefix_hits")}
	if maxUnreadMS >= 0 {
		st.maxUnread = max(1, int(maxUnreadMS/FrameMS)) * st.spf
	}
	return st
}

// blocked reports whether s's chunks must wait: it has parked chunks
// already (order), it is held, or its reader is over the bound.
func (st *codecStage) blocked(s *Stream) bool {
	if s.parked > 0 {
		return true
	}
	if s.isCancelled() {
		return false
	}
	if s.held.Load() {
		return true
	}
	if st.waitsForPredecessor(s) {
		return true
	}
	if st.maxUnread == 0 {
		return false
	}
	s.mu.Lock()
	over := s.unread > st.maxUnread
	s.mu.Unlock()
	return over
}

// process decodes the chunks of batch (in order per stream) and returns the
// chunks ready to deliver in ready (parked ones are kept for later). With
// force (the engine is closing) parked chunks and chunks that would park
// are delivered undecoded.
func (st *codecStage) process(batch []*Chunk, ready []*Chunk, force bool, now func() float64) ([]*Chunk, error) {
	// Closing: parked chunks, and chunks that would park, are not decoded
	// (a stream whose reader left could hold its whole length); their
	// streams end cancelled (ErrClosed).
	drop := func(c *Chunk) {
		c.Stream.setDecErr(ErrClosed)
		if c.Final {
			st.release(c.Stream)
		}
		ready = append(ready, c)
	}
	st.freeKept(force)
	if force {
		st.primed.close()
	}
	if force && len(st.parked) > 0 {
		for _, c := range st.parked {
			c.Stream.parked--
			drop(c)
		}
		clear(st.parked)
		st.parked = st.parked[:0]
	}
	// Chunks parked earlier whose stream's reader has caught up go first.
	var firstErr error
	if len(st.parked) > 0 {
		still := st.parked[:0]
		again := st.again[:0]
		for _, c := range st.parked {
			c.Stream.parked--
		}
		for _, c := range st.parked {
			if st.blocked(c.Stream) {
				c.Stream.parked++
				still = append(still, c)
				continue
			}
			again = append(again, c)
		}
		// keep order: a stream with a still-parked chunk parks its later ones
		st.parked = still
		var err error
		if ready, err = st.decodeAll(again, ready, now); err != nil && firstErr == nil {
			firstErr = err
		}
		clear(again)
		st.again = again[:0]
	}
	work := st.work[:0]
	for _, c := range batch {
		if force && (c.Stream.decErr != nil || st.blocked(c.Stream)) {
			drop(c)
			continue
		}
		if st.blocked(c.Stream) {
			c.Stream.parked++
			st.parked = append(st.parked, c)
			continue
		}
		work = append(work, c)
	}
	ready, err := st.decodeAll(work, ready, now)
	if err != nil && firstErr == nil {
		firstErr = err
	}
	clear(work)
	st.work = work[:0]
	if st.handed {
		// a decoder state was kept for a successor whose chunks may be
		// parked waiting for it: retry them
		st.handed = false
		st.wakeUp()
	}
	return ready, firstErr
}

// decodeAll decodes chunks in rounds (one chunk per stream per round, so a
// stream's chunks stay in order) and appends them to ready. It reorders
// chunks in place (the chunks left for later rounds move to its front).
func (st *codecStage) decodeAll(chunks []*Chunk, ready []*Chunk, now func() float64) ([]*Chunk, error) {
	var firstErr error
	for len(chunks) > 0 {
		st.round = st.round[:0]
		rest := chunks[:0] // written behind the reading index
		for _, c := range chunks {
			dup := false
			for _, r := range st.round {
				if r.Stream == c.Stream {
					dup = true
					break
				}
			}
			if dup {
				rest = append(rest, c)
				continue
			}
			st.round = append(st.round, c)
		}
		if err := st.decodeRound(st.round, now); err != nil && firstErr == nil {
			firstErr = err
		}
		ready = append(ready, st.round...)
		chunks = rest
	}
	return ready, firstErr
}

// decodeRound decodes one chunk per stream in one DecodeBatch, attaching
// PCM to each, then closes the decoder state of final and cancelled streams.
func (st *codecStage) decodeRound(round []*Chunk, now func() float64) error {
	st.streams, st.codes, st.pcm = st.streams[:0], st.codes[:0], st.pcm[:0]
	frames, most := 0, 0
	var firstErr error
	for _, c := range round {
		s := c.Stream
		st.adopt(s)
		if c.Frames == 0 || s.isCancelled() || s.decErr != nil {
			continue
		}
		if s.dec == nil {
			if err := st.openDecoder(s, now); err != nil {
				firstErr = err
				continue
			}
		}
		c.PCM = make([]float32, c.Frames*st.spf)
		st.streams = append(st.streams, s.dec)
		st.codes = append(st.codes, c.Codes[c.LeftContext:])
		st.pcm = append(st.pcm, c.PCM)
		frames += c.Frames
		most = max(most, c.Frames)
	}
	if n := len(st.streams); n > 0 {
		st.busy(true)
		t0 := now()
		err := st.m.DecodeBatch(st.streams, st.codes, st.pcm)
		el := now() - t0
		st.busy(false)
		st.load.observe(el, most)
		st.callMS.Add(el)
		st.decodeMS.AddN(el/float64(frames), frames) // one sample per frame, one lock
		if err != nil {
			firstErr = fmt.Errorf("core: codec decode of %d streams: %w", n, err)
			for _, c := range round {
				if c.PCM != nil {
					c.PCM = nil
					c.Stream.setDecErr(firstErr)
				}
			}
		}
	}
	clear(st.streams)
	clear(st.codes)
	clear(st.pcm)
	for _, c := range round {
		if c.Final {
			st.release(c.Stream)
		} else if c.Stream.isCancelled() {
			c.Stream.closeDecoder()
		}
	}
	return firstErr
}

// dropCancelled ends the parked chunks of cancelled streams without decoding them
// and returns them in ready (their streams still see their final chunk).
func (st *codecStage) dropCancelled(ready []*Chunk) []*Chunk {
	still := st.parked[:0]
	for _, c := range st.parked {
		if c.Stream.isCancelled() {
			c.Stream.parked--
			if c.Final {
				st.release(c.Stream)
			} else {
				c.Stream.closeDecoder()
			}
			ready = append(ready, c)
			continue
		}
		still = append(still, c)
	}
	for i := len(still); i < len(st.parked); i++ {
		st.parked[i] = nil
	}
	st.parked = still
	return ready
}

// wakeUp asks the consumer to retry parked chunks.
func (st *codecStage) wakeUp() {
	select {
	case st.resume <- struct{}{}:
	default:
	}
}

// setDecErr records the stream's first codec error; its end reports it.
func (s *Stream) setDecErr(err error) {
	s.mu.Lock()
	if s.decErr == nil {
		s.decErr = err
	}
	s.mu.Unlock()
}

// openDecoder gives s its decoder state, primed with its reference frames
// when it clones in context; an error is set as s's decErr and returned.
func (st *codecStage) openDecoder(s *Stream, now func() float64) error {
	d, err := st.m.NewStream()
	if err != nil {
		s.setDecErr(fmt.Errorf("core: request %q: codec stream: %w", s.req.ID, err))
		return s.decErr
	}
	s.dec = d
	st.live.Add(1)
	if err := st.prime(s, now); err != nil {
		s.setDecErr(err)
		return s.decErr
	}
	return nil
}

// closeDecoder frees the stream's decoder state (consumer goroutine).
func (s *Stream) closeDecoder() {
	if s.dec != nil {
		s.dec.Close()
		s.dec = nil
		s.stage.live.Add(-1)
	}
}
