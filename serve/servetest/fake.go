// Package servetest provides Fake, a deterministic serve.Synthesizer for
// tests, load tests and the playground without an engine: it "speaks" a
// sine tone at a configurable speed and capacity.
package servetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/omni-tts/omni/serve"
)

// ToneHz and ToneAmplitude define the fake's audio: sample n of every stream
// is ToneAmplitude·sin(2π·ToneHz·n/24000).
const (
	ToneHz        = 440.0
	ToneAmplitude = 0.5
)

// Tone returns sample n of the fake's audio.
func Tone(n int) float32 {
	return float32(ToneAmplitude * math.Sin(2*math.Pi*ToneHz*float64(n)/serve.SampleRate))
}

// FramesFor is how many codec frames the fake makes for an input: two per
// whitespace-separated word plus one, before max_new_tokens.
func FramesFor(input string) int { return 2*len(strings.Fields(input)) + 1 }

// Fake is a serve.Synthesizer. Set its fields before first use; they are not
// changed afterwards.
type Fake struct {
	// Model is returned by Info; DefaultInfo() when zero.
	Model serve.ModelInfo
	// Capacity is the number of streams that may run at once (default 4).
	// When full, Start waits for a slot, or refuses with a CapacityError if
	// RefuseWhenFull.
	Capacity       int
	RefuseWhenFull bool
	// FrameTime is the wall time per codec frame (0: as fast as possible).
	FrameTime time.Duration
	// FramesPerChunk is the frames per chunk (default 2).
	FramesPerChunk int
	// FailAfterChunks makes every stream fail with an error after this many
	// chunks (0: never); FailBeforeAudio fails on the first Next.
	FailAfterChunks int
	FailBeforeAudio bool
	// KVBytesPerStream is what Load reports per running stream (default 1 MiB).
	KVBytesPerStream int64

	once     sync.Once
	slots    chan struct{}
	stopped  chan struct{} // closed by Stop
	stopOnce sync.Once
	stopErr  error
	mu       sync.Mutex
	running  int
	waiting  int
	stats    Stats
	last     serve.SpeechRequest
}

// Stats counts what the fake saw.
type Stats struct {
	Started   int // streams admitted
	Closed    int // streams closed
	Cancelled int // streams closed before their last frame
	Completed int // streams that delivered every frame
}

// DefaultInfo is the model the fake serves unless Model is set.
func DefaultInfo() serve.ModelInfo {
	return serve.ModelInfo{
		Name:      "omni",
		ModelType: "CustomVoice",
		Voices: []serve.Voice{
			{Name: "vivian", Language: "Chinese"}, {Name: "ryan", Language: "English"}, {Name: "serena", Language: "Chinese"},
		},
		Languages:    []string{"Chinese", "English", "Japanese", "Korean", "German", "French", "Russian", "Portuguese", "Spanish", "Italian"},
		Instructions: true,
		SampleRate:   serve.SampleRate,
		MaxNewTokens: 2048,
	}
}

func (f *Fake) init() {
	f.once.Do(func() {
		if f.Capacity == 0 {
			f.Capacity = 4
		}
		if f.FramesPerChunk == 0 {
			f.FramesPerChunk = 2
		}
		if f.KVBytesPerStream == 0 {
			f.KVBytesPerStream = 1 << 20
		}
		if f.Model.Name == "" {
			f.Model = DefaultInfo()
		}
		f.slots = make(chan struct{}, f.Capacity)
		f.stopped = make(chan struct{})
	})
}

// Stop makes the fake behave as an engine whose loop has stopped: Health
// returns an error wrapping serve.ErrUnavailable, callers waiting in Start
// and readers in Next get it, and so does every later Start.
func (f *Fake) Stop() {
	f.init()
	f.stopOnce.Do(func() {
		f.stopErr = fmt.Errorf("%w: fake engine stopped", serve.ErrUnavailable)
		close(f.stopped)
	})
}

// Health implements serve.Synthesizer.
func (f *Fake) Health() error {
	f.init()
	select {
	case <-f.stopped:
		return f.stopErr
	default:
		return nil
	}
}

// Info implements serve.Synthesizer.
func (f *Fake) Info() serve.ModelInfo {
	f.init()
	return f.Model
}

// Load implements serve.Synthesizer.
func (f *Fake) Load() serve.Load {
	f.init()
	f.mu.Lock()
	defer f.mu.Unlock()
	return serve.Load{Running: f.running, Waiting: f.waiting,
		KVBytesInUse: int64(f.running) * f.KVBytesPerStream, KVBytesBudget: int64(f.Capacity) * f.KVBytesPerStream}
}

// Stats returns the counts so far.
func (f *Fake) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// LastRequest returns the request Start was last called with.
func (f *Fake) LastRequest() serve.SpeechRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// Start implements serve.Synthesizer.
func (f *Fake) Start(ctx context.Context, req serve.SpeechRequest) (serve.AudioStream, error) {
	f.init()
	f.mu.Lock()
	f.last = req
	f.mu.Unlock()
	if err := f.Health(); err != nil {
		return nil, err
	}
	select {
	case f.slots <- struct{}{}:
	default:
		if f.RefuseWhenFull {
			return nil, &serve.CapacityError{Reason: "fake: all KV slots in use", RetryAfter: 2 * time.Second}
		}
		f.mu.Lock()
		f.waiting++
		f.mu.Unlock()
		select {
		case f.slots <- struct{}{}:
			f.mu.Lock()
			f.waiting--
			f.mu.Unlock()
		case <-ctx.Done():
			f.mu.Lock()
			f.waiting--
			f.mu.Unlock()
			return nil, ctx.Err()
		case <-f.stopped:
			f.mu.Lock()
			f.waiting--
			f.mu.Unlock()
			return nil, f.stopErr
		}
	}
	frames := FramesFor(req.Input)
	reason := serve.EndEOS
	limit := req.MaxNewTokens
	if limit == 0 {
		limit = f.Model.MaxNewTokens
	}
	if limit > 0 && frames > limit {
		frames, reason = limit, serve.EndMaxTokens
	}
	f.mu.Lock()
	f.running++
	f.stats.Started++
	f.mu.Unlock()
	return &fakeStream{f: f, total: frames, reason: reason, inputTokens: len(req.Input),
		closed: make(chan struct{}), buf: make([]float32, f.FramesPerChunk*serve.SamplesPerFrame)}, nil
}

// fakeStream is one stream of the fake.
type fakeStream struct {
	f           *Fake
	total, done int
	chunks      int
	reason      serve.EndReason
	inputTokens int
	buf         []float32

	closeOnce sync.Once
	closed    chan struct{}
	mu        sync.Mutex
	res       serve.Result
}

// errFake is the injected mid-stream failure.
var errFake = errors.New("fake: injected engine failure")

// Next implements serve.AudioStream.
func (s *fakeStream) Next(ctx context.Context) (serve.Chunk, error) {
	if s.f.FailBeforeAudio || (s.f.FailAfterChunks > 0 && s.chunks >= s.f.FailAfterChunks) {
		s.end(serve.EndError)
		return serve.Chunk{}, errFake
	}
	if err := s.f.Health(); err != nil {
		s.end(serve.EndError)
		return serve.Chunk{}, err
	}
	if s.done >= s.total {
		s.end(s.reason)
		return serve.Chunk{}, io.EOF
	}
	n := min(s.f.FramesPerChunk, s.total-s.done)
	if s.f.FrameTime > 0 {
		t := time.NewTimer(time.Duration(n) * s.f.FrameTime)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.f.stopped:
			s.end(serve.EndError)
			return serve.Chunk{}, s.f.stopErr
		case <-ctx.Done():
			s.end(serve.EndCancelled)
			return serve.Chunk{}, ctx.Err()
		case <-s.closed:
			return serve.Chunk{}, errors.New("fake: stream closed")
		}
	}
	pcm := s.buf[:n*serve.SamplesPerFrame]
	base := s.done * serve.SamplesPerFrame
	for i := range pcm {
		pcm[i] = Tone(base + i)
	}
	s.mu.Lock()
	s.done += n
	s.mu.Unlock()
	s.chunks++
	return serve.Chunk{PCM: pcm, Frames: n}, nil
}

func (s *fakeStream) end(r serve.EndReason) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.res.Reason == "" {
		s.res = serve.Result{Reason: r, Frames: s.done, InputTokens: s.inputTokens, OutputTokens: s.done,
			Steps: map[string]float64{"talker": 0.001 * float64(s.done), "codec": 0.0005 * float64(s.done)}}
	}
}

// Result implements serve.AudioStream.
func (s *fakeStream) Result() serve.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res
}

// Close implements serve.AudioStream: it frees the slot at once.
func (s *fakeStream) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.end(serve.EndCancelled)
		<-s.f.slots
		s.mu.Lock()
		complete := s.done >= s.total
		s.mu.Unlock()
		s.f.mu.Lock()
		s.f.running--
		s.f.stats.Closed++
		if !complete {
			s.f.stats.Cancelled++
		} else {
			s.f.stats.Completed++
		}
		s.f.mu.Unlock()
	})
	return nil
}
