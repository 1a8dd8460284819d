package core

import (
	"testing"

	"github.com/omni-tts/omni/sched"
)

// TestChunkerRamp checks the ramp against the chunk boundaries written out
// from docs/SCHEDULING.md §5: chunk i covers [cum(i−1), cum(i))
// with cum = 2, 6, 14, 30, 55, then +25 per chunk; the left context is
// min(first, 72) frames; a finish flushes the rest.
func TestChunkerRamp(t *testing.T) {
	c := chunker{ramp: sched.DefaultFixedRamp()}
	type cut struct{ at, first, frames, lc int }
	want := []cut{{2, 0, 2, 0}, {6, 2, 4, 2}, {14, 6, 8, 6}, {30, 14, 16, 14}, {55, 30, 25, 30}, {80, 55, 25, 55}, {105, 80, 25, 72}}
	var got []cut
	for total := 1; total <= 110; total++ {
		if ch, ok := c.next(total, 0); ok {
			got = append(got, cut{total, ch.First, ch.Frames, ch.LeftContext})
			if ch.Final {
				t.Errorf("chunk at %d marked final", total)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("chunks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("chunk %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if l := c.left(110, 0); l != 20 {
		t.Errorf("left(110) = %d, want 20 (next chunk ends at 130)", l)
	}
	f := c.finish(110)
	if !f.Final || f.First != 105 || f.Frames != 5 || f.LeftContext != 72 || f.Index != 7 {
		t.Errorf("final chunk %+v, want index 7 first 105 frames 5 context 72", f)
	}
}

func TestChunkerFinishMarker(t *testing.T) {
	c := chunker{ramp: sched.FixedRamp{Ramp: []int{1, 3}, ChunkFrames: 3, LeftContextFrames: 2}}
	if _, ok := c.next(1, 0); !ok {
		t.Fatal("first one-frame chunk not cut")
	}
	if ch, ok := c.next(4, 0); !ok || ch.First != 1 || ch.Frames != 3 || ch.LeftContext != 1 {
		t.Fatalf("second chunk %+v %v", ch, ok)
	}
	f := c.finish(4)
	if !f.Final || f.Frames != 0 || f.First != 4 || f.LeftContext != 2 {
		t.Errorf("final marker %+v", f)
	}
}
