package core

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestFeed: a stream filled from outside reads like an engine's: its
// events in order, a chunk's codes taken from the frames before it, the
// arrival of an audio-carrying chunk at the feeder's clock, the end with
// its cap, Codes once done, io.EOF after the end, nothing after it.
func TestFeed(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	f := NewFeed(context.Background(), Request{ID: "r"}, 5*time.Millisecond, func() { cancelled <- struct{}{} })
	s := f.Stream()
	if s.ID() != "r" || s.Submitted() != 5*time.Millisecond || f.Cancelled() {
		t.Fatalf("new feed: id %q submitted %v cancelled %v", s.ID(), s.Submitted(), f.Cancelled())
	}
	var c0, c1 [Codebooks]int32
	c0[0], c1[0] = 7, 9
	f.Push(Event{Kind: EventFrame, Frame: Frame{Index: 0, Codes: c0}}, 10*time.Millisecond)
	f.Push(Event{Kind: EventFrame, Frame: Frame{Index: 1, Codes: c1}}, 11*time.Millisecond)
	if s.Codes() != nil {
		t.Error("Codes before the end is not nil")
	}
	f.Push(Event{Kind: EventChunk, Chunk: Chunk{Index: 0, First: 0, Frames: 2}}, 20*time.Millisecond)
	if !f.Push(Event{Kind: EventEnd, End: End{Reason: EndLength, Frames: 2, Cap: 2}}, 30*time.Millisecond) {
		t.Fatal("Push(end) did not report the end")
	}
	f.Push(Event{Kind: EventFrame}, 40*time.Millisecond) // dropped
	f.Fail(errors.New("late"))                           // no-op
	ctx := context.Background()
	want := []EventKind{EventFrame, EventFrame, EventChunk, EventEnd}
	for i, k := range want {
		ev, err := s.Next(ctx)
		if err != nil || ev.Kind != k {
			t.Fatalf("event %d: %v, %v; want kind %v", i, ev.Kind, err, k)
		}
		if k == EventChunk && (len(ev.Chunk.Codes) != 2 || ev.Chunk.Codes[1][0] != 9 || ev.Chunk.Stream != s) {
			t.Errorf("chunk codes %v, stream %p; want the two frames of %p", ev.Chunk.Codes, ev.Chunk.Stream, s)
		}
	}
	if _, err := s.Next(ctx); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF", err)
	}
	if e := s.End(); e.Reason != EndLength || e.Cap != 2 || s.Cap() != 2 {
		t.Errorf("end %+v, cap %d", e, s.Cap())
	}
	if a := s.Arrivals(); len(a) != 1 || a[0].At != 20*time.Millisecond || a[0].AudioMS != 2*FrameMS {
		t.Errorf("arrivals %+v, want one at 20 ms of %v ms", a, 2*FrameMS)
	}
	if c := s.Codes(); len(c) != 2 || c[0][0] != 7 {
		t.Errorf("codes %v", c)
	}
	select {
	case <-cancelled:
		t.Error("onCancel ran without a cancellation")
	default:
	}
}

// TestFeedCancelAndFail: cancelling the context is reported and forwarded
// once; Fail ends the stream as cancelled for ErrClosed and as an error
// otherwise, with the frames pushed so far.
func TestFeedCancelAndFail(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	fired := make(chan struct{}, 2)
	f := NewFeed(ctx, Request{ID: "c"}, 0, func() { fired <- struct{}{} })
	f.Push(Event{Kind: EventFrame}, 0)
	cancel()
	<-fired
	if !f.Cancelled() {
		t.Error("Cancelled after cancel = false")
	}
	f.Fail(ErrClosed)
	if e := f.Stream().End(); e.Reason != EndCancelled || e.Frames != 1 || !errors.Is(e.Err, ErrClosed) {
		t.Errorf("Fail(ErrClosed): end %+v, want cancelled after 1 frame", e)
	}
	g := NewFeed(context.Background(), Request{ID: "e"}, 0, nil)
	lost := errors.New("instance lost")
	g.Fail(lost)
	if e := g.Stream().End(); e.Reason != EndError || !errors.Is(e.Err, lost) {
		t.Errorf("Fail(lost): end %+v, want an error end", e)
	}
	select {
	case <-g.Stream().Done():
	default:
		t.Error("Done not closed after Fail")
	}
}

// TestFeedUnreadCountsEveryChunk: the unread samples a Feed counts on
// arrival are uncounted when read, also for a chunk that carries PCM but
// claims no frames (a remote side's mistake must not leave the stream
// counted over its bound, held for ever).
func TestFeedUnreadCountsEveryChunk(t *testing.T) {
	f := NewFeed(context.Background(), Request{ID: "r"}, 0, nil)
	s := f.Stream()
	f.Push(Event{Kind: EventChunk, Chunk: Chunk{Frames: 1, PCM: make([]float32, 5)}}, time.Millisecond)
	f.Push(Event{Kind: EventChunk, Chunk: Chunk{Frames: 0, PCM: make([]float32, 3)}}, time.Millisecond)
	if got := s.Unread(); got != 8 {
		t.Fatalf("Unread after two chunks of 5 and 3 samples = %d, want 8", got)
	}
	for i := range 2 {
		if _, err := s.Next(context.Background()); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
	}
	if got := s.Unread(); got != 0 {
		t.Errorf("Unread after reading both chunks = %d, want 0", got)
	}
}
