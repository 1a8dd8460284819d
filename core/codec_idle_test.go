package core

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// threadLog is a codec backend that records every SetThreads call.
type threadLog struct {
	*simd.Backend
	mu    sync.Mutex
	calls []int
}

func (l *threadLog) SetThreads(n int) int {
	l.mu.Lock()
	l.calls = append(l.calls, n)
	l.mu.Unlock()
	return l.Backend.SetThreads(n)
}

// TestCodecIdleThreads: with CodecBusyThreads 1 the codec stage decodes a
// stream's chunks on one thread while the stream is generating, and the
// final chunk — cut when generation has ended — on all threads (0); the
// choice is made before every decode call and every graph pass. The first
// chunk is decoded on all threads too while generation waits for the first
// audio (first_audio.go), or on one with GenerateDuringFirstDecode.
func TestCodecIdleThreads(t *testing.T) {
	for _, during := range []bool{false, true} {
		b := simd.NewBackend(2)
		t.Cleanup(b.Close)
		log := &threadLog{Backend: b}
		cm := tinyCodec(t, log)
		m := newFake(2)
		m.eosAfter = 33                                        // chunks of 2, 4, 8, 16, then a final one of 3 frames
		m.onStep = func() { time.Sleep(2 * time.Millisecond) } // the codec keeps up
		e, err := New(Config{Model: m, IDs: tinyIDs(), Codec: cm, CodecBusyThreads: 1, HopDepth: 64, GenerateDuringFirstDecode: during})
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e)
		s, evs := speakOne(t, e, "idle")
		chunks := 0
		for _, ev := range evs {
			if ev.Kind == EventChunk {
				chunks++
			}
		}
		if end := s.End(); end.Reason != EndEOS {
			t.Fatalf("stream ended %v (%v), want EOS", end.Reason, end.Err)
		}
		log.mu.Lock()
		calls := slices.Clone(log.calls)
		log.mu.Unlock()
		if len(calls) < chunks-1 { // every decode call and every graph pass sets them (the final chunk may be empty)
			t.Fatalf("threads set %d times for %d chunks, want at least one per decode call: %v", len(calls), chunks, calls)
		}
		want := 0 // generation waits for the first audio
		if during {
			want = 1
		}
		if calls[0] != want {
			t.Fatalf("GenerateDuringFirstDecode %v: first chunk decoded with SetThreads(%d), want %d; calls %v", during, calls[0], want, calls)
		}
		if !slices.Contains(calls, 1) {
			t.Fatalf("no chunk decoded with SetThreads(1) while the stream generates; calls %v", calls)
		}
		if last := calls[len(calls)-1]; last != 0 {
			t.Fatalf("final chunk decoded with SetThreads(%d), want 0 (all threads) after generation ended; calls %v", last, calls)
		}
	}
}

// TestFirstAudioWait: by default no decode step runs between the cut of
// a lone stream's first chunk and that chunk's audio reaching the stream:
// every step sees either fewer frames than the first chunk holds or the
// stream playing. With GenerateDuringFirstDecode, and a codec slower than
// a step, a step does run meanwhile (the old overlap), which shows the
// check can fail.
func TestFirstAudioWait(t *testing.T) {
	for _, during := range []bool{false, true} {
		b := simd.NewBackend(1)
		t.Cleanup(b.Close)
		cm := tinyCodec(t, &slowCodec{Backend: b, delay: 20 * time.Millisecond})
		m := newFake(2)
		m.eosAfter = 12
		var e *Engine
		overlapped := 0
		m.onStep = func() { // on the engine goroutine, inside Step
			for _, s := range e.running {
				if _, started := s.slack(e.now()); !started && len(s.codes) >= 2 {
					overlapped++
				}
			}
		}
		var err error
		e, err = New(Config{Model: m, IDs: tinyIDs(), Codec: cm, CodecBusyThreads: 1, HopDepth: 64, GenerateDuringFirstDecode: during})
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e)
		s, _ := speakOne(t, e, "first")
		if end := s.End(); end.Reason != EndEOS {
			t.Fatalf("stream ended %v (%v), want EOS", end.Reason, end.Err)
		}
		if !during && overlapped > 0 {
			t.Errorf("%d step(s) ran while the first chunk was being decoded, want none", overlapped)
		}
		if during && overlapped == 0 {
			t.Errorf("GenerateDuringFirstDecode: no step overlapped a 20 ms first decode")
		}
	}
}

// slowCodec is a codec backend whose every SetThreads call (made before
// each graph pass) sleeps delay: a decode slower than the fake model's steps.
type slowCodec struct {
	*simd.Backend
	delay time.Duration
}

func (c *slowCodec) SetThreads(n int) int {
	time.Sleep(c.delay)
	return c.Backend.SetThreads(n)
}

// runEngine runs e's loop on its own goroutine until the test ends, then
// stops it and closes e.
func runEngine(t *testing.T, e *Engine) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		e.Close()
	})
}

// TestCodecBusyBrackets: Config.CodecBusy is called true then false around
// every decode call, on the codec goroutine, and never twice in a row with
// the same value.
func TestCodecBusyBrackets(t *testing.T) {
	b := simd.NewBackend(1)
	t.Cleanup(b.Close)
	cm := tinyCodec(t, b)
	m := newFake(2)
	m.eosAfter = 33
	var mu sync.Mutex
	var calls []bool
	e, err := New(Config{Model: m, IDs: tinyIDs(), Codec: cm, CodecBusy: func(on bool) {
		mu.Lock()
		calls = append(calls, on)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	runEngine(t, e)
	_, evs := speakOne(t, e, "busy")
	chunks := 0
	for _, ev := range evs {
		if ev.Kind == EventChunk && ev.Chunk.Frames > 0 {
			chunks++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 2 || len(calls)%2 != 0 || len(calls)/2 > chunks {
		t.Fatalf("%d busy calls for %d decoded chunks: %v", len(calls), chunks, calls)
	}
	for i, on := range calls {
		if on != (i%2 == 0) {
			t.Fatalf("call %d is %v, want alternating true, false: %v", i, on, calls)
		}
	}
}

// tinyCodec returns the tiny synthetic codec (seed 3, fp32) on b, closed
// when the test ends.
func tinyCodec(t *testing.T, b codec.Backend) *codec.Model {
	t.Helper()
	cm, err := codec.NewSynthetic(codec.TinyConfig(), 3, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	return cm
}

// speakOne submits one seeded request to the running engine e and reads
// its stream to the end.
func speakOne(t *testing.T, e *Engine, id string) (*Stream, []Event) {
	t.Helper()
	s, err := e.Submit(context.Background(), seeded(id, []int32{1, 2, 3}, 7, 0))
	if err != nil {
		t.Fatal(err)
	}
	return s, events(t, s)
}
