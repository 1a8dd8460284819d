package core

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/sampler"
	"github.com/omni-tts/omni/sched"
)

// EventKind tells which field of an Event is set.
type EventKind int

const (
	// EventFrame carries a generated frame.
	EventFrame EventKind = iota + 1
	// EventChunk carries a chunk the codec stage received.
	EventChunk
	// EventEnd carries how the stream ended; it is the last event.
	EventEnd
)

// Event is one item of a stream: a frame, a chunk or the end.
type Event struct {
	Kind  EventKind
	Frame Frame // for EventFrame
	Chunk Chunk // for EventChunk
	End   End   // for EventEnd
}

// Arrival is one audio-carrying chunk as the codec stage saw it: when it
// arrived (engine clock) and the audio it carries.
type Arrival struct {
	At      time.Duration
	AudioMS float64
}

// Stream is one request in the engine. Its frames, its chunks (once the
// codec stage has them) and finally its end are read with Next; Done and
// End report the end without reading. Events queue inside the stream until
// read, at most one per frame and chunk of the stream's frame cap.
type Stream struct {
	id        uint64
	req       Request
	ctx       context.Context
	submitted time.Duration
	cancelled atomic.Bool
	stopCtx   func() bool
	held      atomic.Bool // Hold: its chunks wait in the codec stage

	// owned by the step goroutine
	prompt    Prompt // the row recipe (empty for an embedded prompt)
	rows      int    // prompt rows
	nTrailing int    // trailing text rows
	cap       int
	seq       Sequence
	kvBytes   int64 // KV the stream needs for its whole length
	reserved  int64 // KV reserved against the budget (kvBytes once admitted)
	row       int   // batch row holding its pending hidden and logits
	talker    *sampler.Request
	pred      *sampler.Request
	trailing  []float32 // text rows added after each frame (nTrailing×hidden)
	pad       []float32 // row added once they are used up
	codes     [][Codebooks]int32
	chunks    chunker
	pending   bool     // prefilled: its hidden and logits wait in the batch buffers
	live      liveText // Request.Live (live.go)
	reason    EndReason
	err       error

	// owned by the codec stage's goroutine
	dec        *codec.Stream // decoder state (nil before the first chunk and after the last)
	parked     int           // chunks parked in the codec stage
	stage      *codecStage   // nil: codes only
	codecEnded bool          // its final chunk was processed (seam.go)
	kept       bool          // dec is kept for a successor (Request.KeepCodec)
	orphan     bool          // its successor ended first: keep nothing
	dropKept   atomic.Bool   // ReleaseCodec

	admitted  chan struct{} // closed at admission or the end, whichever first
	admitOnce sync.Once

	mu       sync.Mutex
	events   []Event
	head     int
	notify   chan struct{}
	clock    func() time.Duration // the engine clock (FirstRead); nil in a Feed
	arrivals []Arrival
	play     sched.Playback
	end      End
	done     chan struct{}
	unread   int   // decoded samples queued and not yet read
	decErr   error // the codec stage's error (written by its goroutine)
	tl       Timeline
}

// Timeline is when a stream passed each stage on the way to its first
// audio, on the engine clock (zero: not yet). Time to first audio is
// FirstRead − Submitted; the differences attribute it.
type Timeline struct {
	Submitted    time.Duration // Submit
	Admitted     time.Duration // the scheduler admitted it (queueing before)
	Prefilled    time.Duration // its prompt prefill ended
	FirstCut     time.Duration // its first audio-carrying chunk was cut
	FirstPut     time.Duration // the hop queue accepted that chunk
	FirstGot     time.Duration // the codec stage took it
	FirstDecoded time.Duration // its PCM was decoded and queued on the stream
	FirstRead    time.Duration // the reader took it from Next
}

// Timeline returns the stream's timeline so far.
func (s *Stream) Timeline() Timeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tl
	t.Submitted = s.submitted
	return t
}

// mark sets a timeline field once (under s.mu).
func (s *Stream) mark(f *time.Duration, at time.Duration) {
	s.mu.Lock()
	if *f == 0 {
		*f = max(at, 1)
	}
	s.mu.Unlock()
}

// ID returns the request's ID.
func (s *Stream) ID() string { return s.req.ID }

// Request returns the request as submitted.
func (s *Stream) Request() Request { return s.req }

// Cap returns the stream's frame cap.
func (s *Stream) Cap() int { return s.cap }

// Submitted returns the engine clock at Submit.
func (s *Stream) Submitted() time.Duration { return s.submitted }

// Next returns the stream's next event, waiting for one; after the
// EventEnd it returns io.EOF. A cancelled ctx returns ctx.Err().
func (s *Stream) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if s.head < len(s.events) {
			e := s.events[s.head]
			s.events[s.head] = Event{}
			s.head++
			if s.head == len(s.events) {
				s.events, s.head = s.events[:0], 0
			}
			wake := false
			if e.Kind == EventChunk && e.Chunk.Frames > 0 && s.tl.FirstRead == 0 && s.clock != nil {
				s.tl.FirstRead = max(s.clock(), 1)
			}
			// every chunk's PCM was counted unread on arrival (a Feed's
			// too, whatever its Frames), so every read uncounts it
			if n := len(e.Chunk.PCM); e.Kind == EventChunk && n > 0 {
				st := s.stage
				wake = st != nil && st.maxUnread > 0 && s.unread > st.maxUnread && s.unread-n <= st.maxUnread
				s.unread -= n
			}
			s.mu.Unlock()
			if wake {
				s.stage.wakeUp()
			}
			return e, nil
		}
		ended := s.isDone()
		s.mu.Unlock()
		if ended {
			return Event{}, io.EOF
		}
		select {
		case <-s.notify:
		case <-s.done:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Admitted is closed once the scheduler has admitted the stream (it holds
// its KV and a batch row) or once it has ended without being admitted
// (cancelled, refused, engine closed); End tells which. A stream filled by
// a Feed counts as admitted at its first event.
func (s *Stream) Admitted() <-chan struct{} { return s.admitted }

// admit closes admitted once.
func (s *Stream) admit() { s.admitOnce.Do(func() { close(s.admitted) }) }

// Done is closed when the stream has ended and its last chunk reached the
// codec stage.
func (s *Stream) Done() <-chan struct{} { return s.done }

// End returns how the stream ended (Reason EndNone while it runs).
func (s *Stream) End() End {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end
}

// Wait blocks until the stream is done (or ctx is cancelled) and returns
// its end.
func (s *Stream) Wait(ctx context.Context) (End, error) {
	select {
	case <-s.done:
		return s.End(), nil
	case <-ctx.Done():
		return End{}, ctx.Err()
	}
}

// Codes returns a copy of every frame's codes once the stream is done, nil
// before.
func (s *Stream) Codes() [][Codebooks]int32 {
	if !s.isDone() {
		return nil
	}
	out := make([][Codebooks]int32, len(s.codes))
	copy(out, s.codes)
	return out
}

// Hold parks (on) or releases (off) the stream's chunks in the codec stage,
// as the unread-audio bound does: a host whose reader of a remote stream
// (a WASI guest's, mirrored in a Feed) falls behind holds the guest's
// stream so its audio waits as codes. A released inline engine delivers
// them at its next Step.
func (s *Stream) Hold(on bool) {
	if s.held.Swap(on) && !on && s.stage != nil {
		s.stage.wakeUp()
	}
}

// Unread returns the decoded samples queued on the stream and not yet
// read (the codec stage parks the stream's chunks while it is over
// Config.MaxUnreadMS).
func (s *Stream) Unread() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unread
}

// Arrivals returns the audio-carrying chunks the codec stage received so far.
func (s *Stream) Arrivals() []Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Arrival(nil), s.arrivals...)
}

// isDone reports whether done is closed.
func (s *Stream) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// push queues an event and wakes a reader.
func (s *Stream) push(e Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	s.wake()
}

// wake signals a reader waiting in Next.
func (s *Stream) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// arrived records a chunk's delivery by the codec stage (its audio decoded
// when the engine has a codec) and queues its event; a final chunk also
// ends the stream. Playback counts from delivery (DecodedAt).
func (s *Stream) arrived(c *Chunk) {
	s.mu.Lock()
	if c.Frames > 0 {
		s.arrivals = append(s.arrivals, Arrival{At: c.DecodedAt, AudioMS: c.AudioMS()})
		s.play.Arrive(ms(c.DecodedAt), c.AudioMS())
		s.unread += len(c.PCM)
		if s.tl.FirstCut == 0 {
			s.tl.FirstCut, s.tl.FirstPut, s.tl.FirstGot, s.tl.FirstDecoded = max(c.ReadyAt, 1), max(c.PutAt, 1), max(c.GotAt, 1), max(c.DecodedAt, 1)
		}
	}
	s.events = append(s.events, Event{Kind: EventChunk, Chunk: *c})
	if c.Final {
		s.end = End{Reason: s.reason, Err: s.err, Frames: len(s.codes), Cap: s.cap}
		if s.decErr != nil && s.end.Reason != EndCancelled && s.end.Reason != EndError {
			s.end.Reason, s.end.Err = EndError, s.decErr
			if errors.Is(s.decErr, ErrClosed) { // its audio was dropped at Close
				s.end.Reason = EndCancelled
			}
		}
		s.events = append(s.events, Event{Kind: EventEnd, End: s.end})
	}
	s.mu.Unlock()
	if c.Final {
		close(s.done)
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// slack returns the playback slack at now (sched.Playback: audio arrived
// minus time since the first arrival) and whether playback has started.
func (s *Stream) slack(now time.Duration) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.play.Slack(ms(now)), len(s.arrivals) > 0
}

// ms converts a duration to float64 milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// isCancelled reports whether the request's context is done (the AfterFunc
// flag may lag the cancellation, so the context is asked too).
func (s *Stream) isCancelled() bool { return s.cancelled.Load() || s.ctx.Err() != nil }
