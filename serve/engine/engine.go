// Package engine is the serve.Synthesizer over an omni engine
// (host.Engine, in either mode). It lives apart from serve so that the HTTP
// layer links no engine: serve and servetest import neither host nor
// wazero, and only a program that serves a real model links this package.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
)

// Synthesizer is the serve.Synthesizer over an omni engine: a request's
// text is tokenized by the engine's model (Engine.Request), submitted, and
// its stream's PCM chunks are the audio.
//
// Admission is the engine's, and Start waits for it: Start returns once the
// engine's scheduler has admitted the request (its whole KV cache fits,
// never preempting), so serve's count of callers inside Start is the
// engine's waiting queue, bounded by serve's MaxWaiting (429 past it), and
// the time inside Start is the time from submission to admission. A
// request that can never fit is refused at once (429).
//
// The engine's loop is run by the caller, who reports its end with Stopped:
// from then on Health fails and every waiting, running and new request
// ends with serve.ErrUnavailable (503, or an aborted stream) instead of
// hanging.
type Synthesizer struct {
	e        host.Engine
	info     serve.ModelInfo
	budget   int64
	maxReply int // frames of a long input's whole reply; 0: no bound (long.go)

	life     context.Context // cancelled by Stopped
	stop     context.CancelCauseFunc
	stopOnce sync.Once
}

// Options describe the served engine to New.
type Options struct {
	Name          string // the model id clients send ("omni")
	KVBudgetBytes int64  // the engine's KV budget (for /metrics); 0 = unknown
	MaxNewTokens  int    // the default and ceiling of max_new_tokens
	// MaxReplyFrames bounds the audio of a long input's whole reply (its
	// segments together; max_new_tokens caps each); 0: no bound.
	MaxReplyFrames int
}

// New returns the Synthesizer over e. The caller runs the engine (e.Run),
// calls Stopped if that loop ever ends while serving, and closes the engine
// after the server has drained.
func New(e host.Engine, o Options) (*Synthesizer, error) {
	if o.MaxNewTokens <= 0 {
		return nil, fmt.Errorf("serve/engine: max_new_tokens %d, want > 0", o.MaxNewTokens)
	}
	if o.MaxReplyFrames < 0 {
		return nil, fmt.Errorf("serve/engine: max reply frames %d, want >= 0", o.MaxReplyFrames)
	}
	ids := e.IDs()
	info := serve.ModelInfo{
		Name: o.Name, ModelType: taskType(ids.ModelKind), Instructions: ids.TakesInstruct,
		SampleRate: serve.SampleRate, MaxNewTokens: o.MaxNewTokens,
	}
	speakers := ids.SpeakerNames()
	// vivian first: the voice vLLM-Omni uses when a request names none.
	slices.SortStableFunc(speakers, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "vivian":
			return -1
		case b == "vivian":
			return 1
		}
		return 0
	})
	for _, s := range speakers {
		v := serve.Voice{Name: s}
		if d, ok := ids.SpeakerDialect[s]; ok {
			v.Language = d
		}
		info.Voices = append(info.Voices, v)
	}
	for _, l := range ids.LanguageNames() {
		if l != "auto" {
			info.Languages = append(info.Languages, l)
		}
	}
	syn := &Synthesizer{e: e, info: info, budget: o.KVBudgetBytes, maxReply: o.MaxReplyFrames}
	syn.life, syn.stop = context.WithCancelCause(context.Background())
	return syn, nil
}

// Stopped records that the engine's loop has ended (err is what Run
// returned; nil is reported as "returned"): Health fails from now on and
// every request waiting for admission, every running stream and every new
// request ends with an error wrapping serve.ErrUnavailable. Later calls
// are ignored.
func (s *Synthesizer) Stopped(err error) {
	s.stopOnce.Do(func() {
		if err == nil {
			err = errors.New("returned")
		}
		s.stop(fmt.Errorf("%w: engine loop stopped: %v", serve.ErrUnavailable, err))
	})
}

// Health implements serve.Synthesizer: nil until Stopped.
func (s *Synthesizer) Health() error {
	if s.life.Err() != nil {
		return context.Cause(s.life)
	}
	return nil
}

// bind returns ctx, also cancelled when the engine stops, and its release.
func (s *Synthesizer) bind(ctx context.Context) (context.Context, func()) {
	c, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return c, func() { stop(); cancel() }
}

// taskType names a tts_model_type as vLLM-Omni's task_type does.
func taskType(kind string) string {
	switch kind {
	case "custom_voice":
		return "CustomVoice"
	case "voice_design":
		return "VoiceDesign"
	case "base":
		return "Base"
	}
	return "CustomVoice"
}

// Info implements serve.Synthesizer.
func (s *Synthesizer) Info() serve.ModelInfo { return s.info }

// Load implements serve.Synthesizer.
func (s *Synthesizer) Load() serve.Load {
	l, err := s.e.Load()
	if err != nil {
		return serve.Load{KVBytesBudget: s.budget}
	}
	return serve.Load{Running: l.Running, Waiting: l.Waiting, KVBytesInUse: l.KVBytes, KVBytesBudget: s.budget}
}

// Start implements serve.Synthesizer: the request built from text (every
// refusal names its field), the sampling overrides applied, submitted to
// the engine; it returns once the engine has admitted the request (or ctx
// ends, or the engine stops).
func (s *Synthesizer) Start(ctx context.Context, req serve.SpeechRequest) (serve.AudioStream, error) {
	if err := s.servable(req); err != nil {
		return nil, err
	}
	if long, err := s.startLong(ctx, req); long != nil || err != nil {
		return long, err // an input of several segments (long.go)
	}
	r, _, err := s.engineRequest(req, core.TextInput{Text: req.Input}, "")
	if err != nil {
		return nil, err
	}
	st, err := s.submit(ctx, r)
	if err != nil {
		return nil, err // not a nil *engineStream in a non-nil interface
	}
	return st, nil
}

// submit submits r and returns its stream once the engine has admitted it
// (or ctx ends, or the engine stops).
func (s *Synthesizer) submit(ctx context.Context, r core.Request) (*engineStream, error) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	st, err := s.e.Submit(sctx, r)
	if err != nil {
		cancel()
		return nil, submitError(err)
	}
	select {
	case <-st.Admitted():
	case <-ctx.Done():
		cancel() // the engine drops it from its queue at its next step
		return nil, ctx.Err()
	case <-s.life.Done():
		cancel()
		return nil, s.Health()
	}
	return &engineStream{syn: s, s: st, cancel: cancel, input: len(r.TextIDs)}, nil
}

// submitError maps an engine refusal to serve's statuses.
func submitError(err error) error {
	switch {
	case errors.Is(err, core.ErrQueueFull):
		return &serve.CapacityError{Reason: err.Error()}
	case errors.Is(err, core.ErrNoFit):
		return &serve.CapacityError{Reason: err.Error()}
	case errors.Is(err, core.ErrClosed):
		return serve.ErrDraining
	case errors.Is(err, core.ErrInvalidRequest):
		if strings.Contains(err.Error(), "min_tokens") || strings.Contains(err.Error(), "max_frames") {
			return &serve.FieldError{Field: "max_new_tokens", Msg: err.Error()}
		}
		return &serve.FieldError{Field: "input", Msg: err.Error()}
	}
	return err
}

// engineStream is one request's audio from the engine's stream.
type engineStream struct {
	syn    *Synthesizer
	s      *core.Stream
	cancel context.CancelFunc
	input  int

	mu     sync.Mutex
	frames int
	closed bool // Close was called
	res    serve.Result
}

// Next implements serve.AudioStream: the next chunk carrying PCM; io.EOF
// after the stream's end (an engine failure is returned as the error, and
// an engine that stopped as serve.ErrUnavailable).
func (a *engineStream) Next(ctx context.Context) (serve.Chunk, error) {
	bctx, release := a.syn.bind(ctx)
	defer release()
	for {
		ev, err := a.s.Next(bctx)
		if err == io.EOF {
			return serve.Chunk{}, a.finish(a.s.End())
		}
		if err != nil {
			if ctx.Err() == nil {
				if h := a.syn.Health(); h != nil {
					a.fail()
					return serve.Chunk{}, h
				}
			}
			return serve.Chunk{}, err
		}
		switch ev.Kind {
		case core.EventChunk:
			if len(ev.Chunk.PCM) > 0 {
				a.mu.Lock()
				a.frames += ev.Chunk.Frames
				a.mu.Unlock()
				return serve.Chunk{PCM: ev.Chunk.PCM, Frames: ev.Chunk.Frames}, nil
			}
		case core.EventEnd:
			return serve.Chunk{}, a.finish(ev.End)
		}
	}
}

// fail records an error end (the engine stopped) unless one is recorded.
func (a *engineStream) fail() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.res.Reason == "" {
		a.res = serve.Result{Reason: serve.EndError, Frames: a.frames, InputTokens: a.input, OutputTokens: a.frames}
	}
}

// finish records the end and returns io.EOF, or the engine's error.
func (a *engineStream) finish(end core.End) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.res = serve.Result{Frames: a.frames, InputTokens: a.input, OutputTokens: end.Frames, Steps: firstAudioPhases(a.s.Timeline())}
	switch end.Reason {
	case core.EndEOS:
		a.res.Reason = serve.EndEOS
	case core.EndLength:
		a.res.Reason = serve.EndMaxTokens
	case core.EndCancelled:
		a.res.Reason = serve.EndCancelled
		if errors.Is(end.Err, core.ErrClosed) {
			// The engine was closed under the stream: not the client's doing.
			return fmt.Errorf("%w: %v", serve.ErrUnavailable, end.Err)
		}
		return context.Canceled
	default:
		a.res.Reason = serve.EndError
		if end.Err != nil {
			return end.Err
		}
		return errors.New("serve/engine: the engine ended the stream with an error")
	}
	return io.EOF
}

// firstAudioPhases attributes a stream's time to first audio to the
// engine's phases, in seconds (serve adds them to omni_step_seconds_total):
// queueing before admission, the prompt prefill, the first chunk's frames,
// the hop to the codec stage and the first decode. A phase the stream never
// reached is left out.
func firstAudioPhases(tl core.Timeline) map[string]float64 {
	steps := map[string]float64{}
	add := func(phase string, from, to time.Duration) {
		if from > 0 && to >= from {
			steps[phase] = (to - from).Seconds()
		}
	}
	add("queue", tl.Submitted, tl.Admitted)
	add("prefill", tl.Admitted, tl.Prefilled)
	add("first_frames", tl.Prefilled, tl.FirstCut)
	add("hop", tl.FirstCut, tl.FirstGot)
	add("first_decode", tl.FirstGot, tl.FirstDecoded)
	return steps
}

// Result implements serve.AudioStream. Before the end was read (a client that
// hung up) it reports the frames so far, ended cancelled once Close was
// called.
func (a *engineStream) Result() serve.Result {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.res.Reason == "" {
		r := serve.Result{Frames: a.frames, InputTokens: a.input, OutputTokens: a.frames, Steps: firstAudioPhases(a.s.Timeline())}
		if a.closed {
			r.Reason = serve.EndCancelled
		}
		return r
	}
	return a.res
}

// Close implements serve.AudioStream: it cancels the stream, whose KV and decoder
// state the engine frees at its next step.
func (a *engineStream) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cancel()
	return nil
}
