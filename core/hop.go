package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/omni-tts/omni/stats"
)

// ChunkSink observes every chunk of every stream in order, on the codec
// stage's goroutine, before the codec (Config.Codec) decodes it; ChunkLog
// records them. Consume must not keep c.Codes past its return unless it
// copies them.
type ChunkSink interface {
	Consume(c *Chunk) error
}

// hop carries chunks from the step loop to the codec stage over a bounded
// queue: a full queue blocks the step loop, so a slow codec stage slows
// generation and memory stays bounded. In inline mode (no consumer
// goroutine, for the synchronous Step API) put delivers directly. The
// consumer takes every chunk waiting in the queue at once, so the codec
// decodes the chunks of several streams in one batch.
type hop struct {
	q      chan *Chunk
	prime  chan *Stream // in-context clones to prime before their first chunk (clone_prefix.go)
	sink   ChunkSink
	stage  *codecStage // nil: codes only
	now    func() time.Duration
	inline bool
	// genIdle is set while generation waits: no stream generating (Step),
	// or put blocked on a full queue. The codec stage reads it to decode
	// on all of its threads then (codec_idle.go).
	genIdle atomic.Bool
	// arrivedSig is signalled after every delivery (awaitFirstAudio).
	arrivedSig chan struct{}

	enqueueToPut, putMS, getMS, putToGet *stats.Counter

	batch, ready []*Chunk // consumer's buffers

	mu     sync.Mutex
	err    error
	closed chan struct{}
}

// newHop returns a hop with a queue of depth chunks.
func newHop(depth int, sink ChunkSink, now func() time.Duration, rec *stats.Recorder) *hop {
	return &hop{
		q:            make(chan *Chunk, depth),
		prime:        make(chan *Stream, primeQueue),
		sink:         sink,
		now:          now,
		enqueueToPut: rec.Counter("hop.enqueue_to_put_ms"),
		putMS:        rec.Counter("hop.put_ms"),
		getMS:        rec.Counter("hop.get_ms"),
		putToGet:     rec.Counter("hop.put_to_get_ms"),
		closed:       make(chan struct{}),
		arrivedSig:   make(chan struct{}, 1),
	}
}

// put hands c to the codec stage, blocking while the queue is full.
func (h *hop) put(c *Chunk) {
	t := h.now()
	h.enqueueToPut.Add(ms(t - c.ReadyAt))
	if h.inline {
		c.PutAt = t
		h.putMS.Add(0)
		h.batch = append(h.batch[:0], c)
		h.deliver(h.batch, false) // inline engines have no bound, but Hold holds
		h.batch[0] = nil
		return
	}
	c.PutAt = t
	select {
	case h.q <- c:
	default: // full: generation waits for the codec stage
		h.genIdle.Store(true)
		h.q <- c
		h.genIdle.Store(false)
	}
	h.putMS.Add(ms(h.now() - t))
}

// run consumes the queue until it is closed (the consumer goroutine): it
// takes every chunk waiting, decodes them together and delivers them; a
// reader catching up (stage.resume) retries the parked chunks.
func (h *hop) run() {
	defer close(h.closed)
	var resume chan struct{}
	if h.stage != nil {
		resume = h.stage.resume
	}
	for {
		var c *Chunk
		ok := true
		select {
		case c, ok = <-h.q:
		case s := <-h.prime:
			h.stage.primeEarly(s, func() float64 { return ms(h.now()) })
			continue
		case <-resume:
		}
		if !ok {
			h.deliver(nil, true)
			return
		}
		h.batch = h.batch[:0]
		if c != nil {
			h.batch = append(h.batch, c)
		}
	more:
		for len(h.batch) < cap(h.q) {
			select {
			case c, ok := <-h.q:
				if !ok {
					h.deliver(h.batch, true)
					return
				}
				h.batch = append(h.batch, c)
			default:
				break more
			}
		}
		h.deliver(h.batch, false)
		clear(h.batch)
	}
}

// deliver passes the chunks to the sink, decodes them (the codec stage)
// and hands them to their streams. force (closing) delivers the chunks held
// back by the unread-audio bound or Hold without decoding them.
func (h *hop) deliver(batch []*Chunk, force bool) {
	t := h.now()
	for _, c := range batch {
		c.GotAt = t
		h.putToGet.Add(ms(t - c.PutAt))
		if h.sink != nil {
			if err := h.sink.Consume(c); err != nil {
				h.setErr(err)
			}
		}
	}
	ready := batch
	if h.stage != nil {
		var err error
		ready, err = h.stage.process(batch, h.ready[:0], force, func() float64 { return ms(h.now()) })
		if err != nil {
			h.setErr(err)
		}
		ready = h.stage.dropCancelled(ready)
		h.ready = ready
	}
	done := h.now()
	for _, c := range ready {
		c.DecodedAt = done
		c.Stream.arrived(c)
	}
	clear(h.ready)
	if len(ready) > 0 {
		select {
		case h.arrivedSig <- struct{}{}:
		default:
		}
	}
	if len(batch) > 0 {
		h.getMS.Add(ms(h.now() - t))
	}
}

// setErr records the stage's first error.
func (h *hop) setErr(err error) {
	h.mu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
}

// close stops the consumer after it has drained the queue.
func (h *hop) close() {
	close(h.q)
	if h.inline {
		h.deliver(nil, true)
		close(h.closed)
	}
	<-h.closed
}

// Err returns the sink's first error.
func (h *hop) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// ChunkRecord is one chunk as the recording codec stage saw it.
type ChunkRecord struct {
	Stream      string        // request ID
	Index       int           // chunk index in the stream
	First       int           // first new frame
	Frames      int           // new frames
	LeftContext int           // context frames
	Final       bool          // last chunk of the stream
	Ready       time.Duration // engine clock when cut
	Got         time.Duration // engine clock when received
	PlaybackMS  float64       // audio of the stream up to and including this chunk
}

// ChunkLog is the recording codec stage: it keeps one ChunkRecord per chunk
// (the codes are not kept). It is safe for concurrent use.
type ChunkLog struct {
	mu      sync.Mutex
	records []ChunkRecord
	audio   map[*Stream]float64
}

// Consume implements ChunkSink.
func (l *ChunkLog) Consume(c *Chunk) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.audio == nil {
		l.audio = map[*Stream]float64{}
	}
	l.audio[c.Stream] += c.AudioMS()
	l.records = append(l.records, ChunkRecord{
		Stream: c.Stream.ID(), Index: c.Index, First: c.First, Frames: c.Frames, LeftContext: c.LeftContext,
		Final: c.Final, Ready: c.ReadyAt, Got: c.GotAt, PlaybackMS: l.audio[c.Stream],
	})
	if c.Final {
		delete(l.audio, c.Stream)
	}
	return nil
}

// Records returns the chunks received so far.
func (l *ChunkLog) Records() []ChunkRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]ChunkRecord(nil), l.records...)
}
