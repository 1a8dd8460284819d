package host

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/wasm/abi"
)

// ID implements Stream.
func (s *wasiStream) ID() string { return s.req.ID }

// deliver converts a guest event and queues it; it reports whether the
// stream ended.
func (s *wasiStream) deliver(w *abi.Event) bool {
	ev := core.Event{Kind: core.EventKind(w.Kind)}
	s.mu.Lock()
	ended := false
	switch ev.Kind {
	case core.EventFrame:
		ev.Frame = core.Frame{Index: w.Index, Codes: w.Codes, At: time.Duration(w.At), Step: w.Step}
		s.codes = append(s.codes, w.Codes)
	case core.EventChunk:
		c := core.Chunk{Index: w.Index, First: w.First, Frames: w.Frames, LeftContext: w.LeftContext, Final: w.Final,
			ReadyAt: time.Duration(w.ReadyAt), PutAt: time.Duration(w.PutAt), GotAt: time.Duration(w.GotAt)}
		if c.Frames > 0 && s.clock != nil {
			s.arrivals = append(s.arrivals, core.Arrival{At: s.clock(), AudioMS: c.AudioMS()})
		}
		if lo, hi := w.First-w.LeftContext, w.First+w.Frames; lo >= 0 && lo <= hi && hi <= len(s.codes) {
			c.Codes = s.codes[lo:hi:hi]
		}
		ev.Chunk = c
	case core.EventEnd:
		var err error
		if w.Err != "" {
			err = errors.New(w.Err)
		}
		ev.End = core.End{Reason: core.EndReason(w.Reason), Err: err, Frames: w.Index, Cap: w.Cap}
		s.end = ev.End
		ended = true
	}
	s.events = append(s.events, ev)
	s.mu.Unlock()
	s.wakeReader()
	if ended {
		s.finish()
	}
	return ended
}

// fail ends the stream with EndError (its instance was lost or the engine
// closed).
func (s *wasiStream) fail(err error) {
	s.mu.Lock()
	if s.isDone() {
		s.mu.Unlock()
		return
	}
	reason := core.EndError
	if errors.Is(err, core.ErrClosed) {
		reason = core.EndCancelled
	}
	s.end = core.End{Reason: reason, Err: err, Frames: len(s.codes)}
	s.events = append(s.events, core.Event{Kind: core.EventEnd, End: s.end})
	s.mu.Unlock()
	s.wakeReader()
	s.finish()
}

// finish closes done once.
func (s *wasiStream) finish() {
	if s.stopCtx != nil {
		s.stopCtx()
	}
	s.mu.Lock()
	if !s.isDone() {
		close(s.done)
	}
	s.mu.Unlock()
}

// wakeReader signals Next.
func (s *wasiStream) wakeReader() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// isDone reports whether done is closed.
func (s *wasiStream) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Next implements Stream.
func (s *wasiStream) Next(ctx context.Context) (core.Event, error) {
	for {
		s.mu.Lock()
		if len(s.events) > 0 {
			e := s.events[0]
			s.events = s.events[1:]
			s.mu.Unlock()
			return e, nil
		}
		ended := s.isDone()
		s.mu.Unlock()
		if ended {
			return core.Event{}, io.EOF
		}
		select {
		case <-s.notify:
		case <-s.done:
		case <-ctx.Done():
			return core.Event{}, ctx.Err()
		}
	}
}

// Done implements Stream.
func (s *wasiStream) Done() <-chan struct{} { return s.done }

// End implements Stream.
func (s *wasiStream) End() core.End {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end
}

// Wait implements Stream.
func (s *wasiStream) Wait(ctx context.Context) (core.End, error) {
	select {
	case <-s.done:
		return s.End(), nil
	case <-ctx.Done():
		return core.End{}, ctx.Err()
	}
}

// Codes implements Stream.
func (s *wasiStream) Codes() [][core.Codebooks]int32 {
	if !s.isDone() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][core.Codebooks]int32(nil), s.codes...)
}

// Submitted implements Stream (host clock).
func (s *wasiStream) Submitted() time.Duration { return s.submitted }

// Arrivals implements Stream: when the host received each audio-carrying
// chunk (host clock).
func (s *wasiStream) Arrivals() []core.Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]core.Arrival(nil), s.arrivals...)
}
