package core

import (
	"sync"
	"time"

	"github.com/omni-tts/omni/stats"
)

// ChunkSink is the codec stage (stage 1): it consumes every chunk of every
// stream in order, on one goroutine. Until omni has the codec decoder the
// default sink only records (ChunkLog). Consume must not keep c.Codes past
// its return unless it copies them.
type ChunkSink interface {
	Consume(c *Chunk) error
}

// hop carries chunks from the step loop to the codec stage over a bounded
// queue: a full queue blocks the step loop, so a slow codec stage slows
// generation and memory stays bounded. In inline mode (no consumer
// goroutine, for the synchronous Step API) put delivers directly.
type hop struct {
	q      chan *Chunk
	sink   ChunkSink
	now    func() time.Duration
	inline bool

	enqueueToPut, putMS, getMS, putToGet *stats.Counter

	mu     sync.Mutex
	err    error
	closed chan struct{}
}

// newHop returns a hop with a queue of depth chunks.
func newHop(depth int, sink ChunkSink, now func() time.Duration, rec *stats.Recorder) *hop {
	return &hop{
		q:            make(chan *Chunk, depth),
		sink:         sink,
		now:          now,
		enqueueToPut: rec.Counter("hop.enqueue_to_put_ms"),
		putMS:        rec.Counter("hop.put_ms"),
		getMS:        rec.Counter("hop.get_ms"),
		putToGet:     rec.Counter("hop.put_to_get_ms"),
		closed:       make(chan struct{}),
	}
}

// put hands c to the codec stage, blocking while the queue is full.
func (h *hop) put(c *Chunk) {
	t := h.now()
	h.enqueueToPut.Add(ms(t - c.ReadyAt))
	if h.inline {
		c.PutAt = t
		h.putMS.Add(0)
		h.deliver(c)
		return
	}
	c.PutAt = t
	h.q <- c
	h.putMS.Add(ms(h.now() - t))
}

// run consumes the queue until it is closed (the consumer goroutine).
func (h *hop) run() {
	defer close(h.closed)
	for c := range h.q {
		h.deliver(c)
	}
}

// deliver passes one chunk to the sink and to its stream.
func (h *hop) deliver(c *Chunk) {
	t := h.now()
	c.GotAt = t
	h.putToGet.Add(ms(t - c.PutAt))
	if h.sink != nil {
		if err := h.sink.Consume(c); err != nil {
			h.mu.Lock()
			if h.err == nil {
				h.err = err
			}
			h.mu.Unlock()
		}
	}
	c.Stream.arrived(c)
	h.getMS.Add(ms(h.now() - t))
}

// close stops the consumer after it has drained the queue.
func (h *hop) close() {
	close(h.q)
	if h.inline {
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
