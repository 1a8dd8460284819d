package core

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// longEngine returns a running engine over the fake model (end of speech
// after eosAfter frames) with the tiny synthetic codec, and its codec.
func longEngine(t *testing.T, eosAfter int) (*Engine, *codec.Model) {
	t.Helper()
	b := simd.NewBackend(1)
	t.Cleanup(func() { b.Close() })
	cm := tinyCodec(t, b)
	m := newFake(4)
	m.eosAfter = eosAfter
	e, err := New(Config{Model: m, IDs: tinyIDs(), Codec: cm})
	if err != nil {
		t.Fatal(err)
	}
	runEngine(t, e)
	return e, cm
}

// readLong reads l to its end and returns its events and the audio.
func readLong(t *testing.T, l *Long) ([]LongEvent, []float32, error) {
	t.Helper()
	var evs []LongEvent
	var pcm []float32
	for {
		ev, err := l.Next(context.Background())
		if err != nil {
			return evs, pcm, err
		}
		pcm = append(pcm, ev.PCM...)
		ev.PCM = nil
		evs = append(evs, ev)
	}
}

// waitDecoders waits (bounded) until the engine holds no decoder state.
func waitDecoders(t *testing.T, e *Engine) {
	t.Helper()
	for i := 0; e.Load().Decoders != 0; i++ {
		if i == 2000 {
			t.Fatalf("%d codec decoder states still open after the reply", e.Load().Decoders)
		}
		e.kick()
		time.Sleep(time.Millisecond)
	}
}

// TestLongSeamIsOneUtterance: a reply of four segments (one reaching its
// frame cap) reads as segment starts, audio and ends in order, reports the
// capped segment, and its audio is exactly what one codec stream decodes
// from all the segments' frames in one call (the codec's own definition of
// one utterance): the decoder state runs on across every seam. Decoding
// each segment with a fresh decoder, as separate requests would, differs.
func TestLongSeamIsOneUtterance(t *testing.T) {
	e, cm := longEngine(t, 9)
	reqs := []Request{
		seeded("a", []int32{1, 2, 3}, 1, 0),
		seeded("b", []int32{4, 5}, 2, 5), // capped at 5 frames before its EOS at 9
		seeded("c", []int32{6}, 3, 0),
		seeded("d", []int32{7, 8, 9, 10}, 4, 0),
	}
	l, err := NewLong(context.Background(), e, reqs, LongOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs, pcm, err := readLong(t, l)
	if err != io.EOF {
		t.Fatalf("reply ended with %v, want io.EOF", err)
	}
	res := l.Result()
	if !slices.Equal(res.Capped, []int{1}) || res.Truncated {
		t.Errorf("capped %v truncated %v, want [1] false", res.Capped, res.Truncated)
	}
	// the event order, and the sample positions
	var all [][Codebooks]int32
	seg, at := 0, int64(0)
	for _, ev := range evs {
		if ev.Segment != seg {
			t.Fatalf("event %+v of segment %d while reading %d", ev, ev.Segment, seg)
		}
		switch ev.Kind {
		case LongSegmentStart:
			if ev.StartSample != at {
				t.Errorf("segment %d starts at %d, audio so far %d", seg, ev.StartSample, at)
			}
		case LongAudio:
			at += int64(ev.Frames * cm.SamplesPerFrame())
		case LongSegmentEnd:
			codes := l.streams[seg].Codes()
			want := map[int]EndReason{0: EndEOS, 1: EndLength, 2: EndEOS, 3: EndEOS}[seg]
			if ev.End.Reason != want || ev.Frames != len(codes) || ev.EndSample != at {
				t.Errorf("segment %d ended %v after %d frames at sample %d, want %v after %d at %d", seg, ev.End.Reason, ev.Frames, ev.EndSample, want, len(codes), at)
			}
			all = append(all, codes...)
			seg++
		}
	}
	if seg != 4 || res.Frames != len(all) || int64(len(pcm)) != at || res.Samples != at {
		t.Fatalf("%d segments ended, %d frames, %d samples (result %d frames %d samples), want 4 segments of %d frames", seg, res.Frames, len(pcm), res.Frames, res.Samples, len(all))
	}
	// the reference: one decoder over all frames at once
	ref, err := cm.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want := make([]float32, len(all)*cm.SamplesPerFrame())
	if err := ref.Decode(all, want); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if pcm[i] != want[i] {
			t.Fatalf("sample %d (frame %d) = %g, one decode of all frames gives %g", i, i/cm.SamplesPerFrame(), pcm[i], want[i])
		}
	}
	// fresh decoders per segment (separate requests) would differ after the first seam
	first := len(l.streams[0].Codes())
	fresh, err := cm.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	sep := make([]float32, len(l.streams[1].Codes())*cm.SamplesPerFrame())
	if err := fresh.Decode(l.streams[1].Codes(), sep); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(sep, pcm[first*cm.SamplesPerFrame():first*cm.SamplesPerFrame()+len(sep)]) {
		t.Error("a fresh decoder gives segment 1 the same samples: the test cannot tell a seam")
	}
	waitDecoders(t, e)
}

// TestLongMaxFrames: the reply's bound cuts it inside segment 1 and says
// so; segment 2 never runs; every decoder state is freed.
func TestLongMaxFrames(t *testing.T) {
	e, cm := longEngine(t, 9)
	spf := cm.SamplesPerFrame()
	reqs := []Request{seeded("a", []int32{1}, 1, 0), seeded("b", []int32{2}, 2, 0), seeded("c", []int32{3}, 3, 0)}
	l, err := NewLong(context.Background(), e, reqs, LongOptions{MaxFrames: 15})
	if err != nil {
		t.Fatal(err)
	}
	_, pcm, err := readLong(t, l)
	if err != io.EOF {
		t.Fatalf("reply ended with %v, want io.EOF", err)
	}
	res := l.Result()
	if !res.Truncated || res.Frames != 15 || len(pcm) != 15*spf {
		t.Errorf("truncated %v after %d frames, %d samples; want true, 15, %d", res.Truncated, res.Frames, len(pcm), 15*spf)
	}
	got := []EndReason{res.Segments[0].Reason, res.Segments[1].Reason, res.Segments[2].Reason}
	if !slices.Equal(got, []EndReason{EndEOS, EndLength, EndNone}) || res.Segments[1].Frames != 6 {
		t.Errorf("segments ended %v (segment 1 after %d frames), want [eos length none] after 6", got, res.Segments[1].Frames)
	}
	waitDecoders(t, e)
}

// TestLongClose: closing a reply mid-way ends it cancelled and frees every
// stream's KV and decoder state.
func TestLongClose(t *testing.T) {
	e, _ := longEngine(t, 0) // never ends by itself
	reqs := []Request{seeded("a", []int32{1}, 1, 200), seeded("b", []int32{2}, 2, 200)}
	l, err := NewLong(context.Background(), e, reqs, LongOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 3; {
		ev, err := l.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == LongAudio {
			n++
		}
	}
	l.Close()
	for {
		_, err := l.Next(context.Background())
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("closed reply ended with %v, want context.Canceled", err)
			}
			break
		}
	}
	waitDecoders(t, e)
	for i := 0; e.Load().Running+e.Load().Waiting != 0; i++ {
		if i == 2000 {
			t.Fatalf("load %+v after Close, want nothing running", e.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSegmentSeed: segment 0 keeps the request's seed, unset seeds stay
// unset, later segments take SplitMix64(seed + k·golden) >> 1 (values
// worked in Python).
func TestSegmentSeed(t *testing.T) {
	s := int64(42)
	if got := SegmentSeed(&s, 0); got != &s {
		t.Errorf("segment 0 seed %v, want the request's", got)
	}
	if SegmentSeed(nil, 3) != nil || *SegmentSeed(Seed(-1), 3) != -1 {
		t.Error("an unset seed was derived")
	}
	for _, c := range []struct {
		seed int64
		k    int
		want int64
	}{{42, 1, 6839728766377637706}, {42, 2, 1474913046063446145}, {0, 1, 8147104208329303767}} {
		if got := *SegmentSeed(&c.seed, c.k); got != c.want {
			t.Errorf("SegmentSeed(%d, %d) = %d, want %d", c.seed, c.k, got, c.want)
		}
	}
}

// TestNewLongRefuses: no segments and bad options are refused by name.
func TestNewLongRefuses(t *testing.T) {
	e, _ := longEngine(t, 9)
	for _, c := range []struct {
		reqs []Request
		o    LongOptions
	}{{nil, LongOptions{}}, {[]Request{seeded("a", []int32{1}, 1, 0)}, LongOptions{MaxFrames: -1}}, {[]Request{seeded("a", []int32{1}, 1, 0)}, LongOptions{Ahead: -2}}} {
		if _, err := NewLong(context.Background(), e, c.reqs, c.o); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("NewLong(%d requests, %+v) error %v, want ErrInvalidRequest", len(c.reqs), c.o, err)
		}
	}
}
