package core

import (
	"context"
	"errors"
	"time"
)

// Feed fills a Stream with the events of a stream that runs elsewhere: the
// WASI host mirrors each guest stream into one, so a reader sees the same
// Stream type whichever side ran the engine. One goroutine pushes; any may
// read the Stream.
type Feed struct {
	s *Stream
}

// NewFeed returns a feed for a stream of req submitted at submitted (the
// feeder's clock). When ctx is cancelled the feed reports Cancelled and
// calls onCancel (nil: nothing), so the feeder can forward it.
func NewFeed(ctx context.Context, req Request, submitted time.Duration, onCancel func()) *Feed {
	if ctx == nil {
		ctx = context.Background()
	}
	s := &Stream{req: req, ctx: ctx, submitted: submitted, notify: make(chan struct{}, 1), done: make(chan struct{}), admitted: make(chan struct{})}
	s.stopCtx = context.AfterFunc(ctx, func() {
		s.cancelled.Store(true)
		if onCancel != nil {
			onCancel()
		}
	})
	return &Feed{s: s}
}

// Stream returns the stream the feed fills.
func (f *Feed) Stream() *Stream { return f.s }

// Cancelled reports whether the stream's context is done.
func (f *Feed) Cancelled() bool { return f.s.isCancelled() }

// Push delivers one event of the remote stream; now (the feeder's clock)
// is the arrival time recorded for an audio-carrying chunk. A chunk's
// Codes are filled from the frames pushed before it. It reports whether
// the event ended the stream; events after the end are dropped.
func (f *Feed) Push(ev Event, now time.Duration) bool {
	s := f.s
	if s.isDone() {
		return true
	}
	s.mu.Lock()
	ended := false
	switch ev.Kind {
	case EventFrame:
		s.codes = append(s.codes, ev.Frame.Codes)
	case EventChunk:
		c := &ev.Chunk
		c.Stream = s
		if lo, hi := c.First-c.LeftContext, c.First+c.Frames; lo >= 0 && lo <= hi && hi <= len(s.codes) {
			c.Codes = s.codes[lo:hi:hi]
		}
		s.unread += len(c.PCM)
		if c.Frames > 0 {
			s.arrivals = append(s.arrivals, Arrival{At: now, AudioMS: c.AudioMS()})
			s.play.Arrive(ms(now), c.AudioMS())
		}
	case EventEnd:
		s.end, s.cap = ev.End, ev.End.Cap
		ended = true
	}
	s.events = append(s.events, ev)
	s.mu.Unlock()
	s.admit()
	s.wake()
	if ended {
		f.close()
	}
	return ended
}

// Fail ends the stream with err unless it has ended: EndCancelled when err
// is ErrClosed, else EndError (the remote side was lost).
func (f *Feed) Fail(err error) {
	s := f.s
	if s.isDone() {
		return
	}
	reason := EndError
	if errors.Is(err, ErrClosed) {
		reason = EndCancelled
	}
	s.mu.Lock()
	s.end = End{Reason: reason, Err: err, Frames: len(s.codes), Cap: s.cap}
	s.events = append(s.events, Event{Kind: EventEnd, End: s.end})
	s.mu.Unlock()
	s.wake()
	f.close()
}

// close stops the context hook and closes done.
func (f *Feed) close() {
	f.s.admit()
	f.s.stopCtx()
	close(f.s.done)
}
