package core

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// liveRun steps an inline engine over one stream, calling at(frames) after
// every step, until the stream is done; it returns its codes and end.
func liveRun(t *testing.T, e *Engine, s *Stream, at func(frames int)) ([][Codebooks]int32, End) {
	t.Helper()
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("stream never ended")
		}
		if _, err := e.Step(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.Done():
			return s.Codes(), s.End()
		default:
		}
		at(len(s.codes))
	}
}

// TestLiveTextAllAtOnce: a live stream given all its text before its first
// step generates exactly what the plain streaming request of that text
// does (same rows in the same frames: text, then tts_eos, then tts_pad).
func TestLiveTextAllAtOnce(t *testing.T) {
	run := func(live bool) ([][Codebooks]int32, End) {
		m := newFake(1)
		m.eosAfter = 6
		e, err := New(Config{Model: m, IDs: tinyIDs(), Inline: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r := seeded("x", []int32{1, 2, 3, 4}, 7, 30)
		if live {
			r.TextIDs, r.Live = []int32{1}, true
		}
		s, err := e.Submit(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if live {
			if err := s.FeedText([]int32{2, 3, 4}); err != nil {
				t.Fatal(err)
			}
			s.EndText()
		}
		return liveRun(t, e, s, func(int) {})
	}
	want, wend := run(false)
	got, gend := run(true)
	if !slices.Equal(got, want) || gend.Reason != wend.Reason {
		t.Errorf("live stream: %d frames ended %v; plain request: %d frames ended %v (codes equal: %v)", len(got), gend.Reason, len(want), wend.Reason, slices.Equal(got, want))
	}
}

// TestLiveTextWaits: a live stream whose model wants to stop after 3
// frames cannot end while its text is not all fed: it pads, takes the text
// fed late, and ends (EOS) only after EndText's row.
func TestLiveTextWaits(t *testing.T) {
	m := newFake(1)
	m.eosAfter = 3
	e, err := New(Config{Model: m, IDs: tinyIDs(), Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := seeded("x", []int32{1}, 7, 100)
	r.Live = true
	s, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	endAt := -1
	codes, end := liveRun(t, e, s, func(n int) {
		switch n {
		case 10:
			if err := s.FeedText([]int32{5, 6}); err != nil {
				t.Fatal(err)
			}
		case 20:
			if endAt < 0 {
				s.EndText()
				endAt = n
			}
		}
	})
	if end.Reason != EndEOS || len(codes) <= endAt {
		t.Errorf("live stream ended %v after %d frames, text ended at frame %d: want EOS after it", end.Reason, len(codes), endAt)
	}
	if err := s.FeedText([]int32{1}); !errors.Is(err, ErrTextEnded) {
		t.Errorf("FeedText after EndText: %v, want ErrTextEnded", err)
	}
}

// TestLiveRefusals: bad live requests and ids are refused by name.
func TestLiveRefusals(t *testing.T) {
	e, err := New(Config{Model: newFake(1), IDs: tinyIDs(), Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := seeded("x", []int32{1}, 7, 0)
	r.Live = true
	if _, err := e.Submit(context.Background(), r); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("live without max_frames: %v, want ErrInvalidRequest", err)
	}
	r.MaxFrames = 10
	s, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FeedText([]int32{64}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("FeedText(64) on a vocabulary of 64: %v, want ErrInvalidRequest", err)
	}
	plain, err := e.Submit(context.Background(), seeded("y", []int32{1}, 7, 10))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.FeedText([]int32{1}); err == nil {
		t.Error("FeedText on a plain stream accepted")
	}
}
