package serve

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
)

// EngineSynthesizer is the Synthesizer over an omni engine (host.Engine, in
// either mode): a request's text is tokenized by the engine's model
// (Engine.Request), submitted, and its stream's PCM chunks are the audio.
// Admission is the engine's: a request waits in the engine's queue until its
// whole KV cache fits (never preempting), the queue's bound is the engine's
// MaxWaiting, and a request that can never fit is refused.
type EngineSynthesizer struct {
	e      host.Engine
	info   ModelInfo
	budget int64
}

// EngineOptions describe the served engine to NewEngineSynthesizer.
type EngineOptions struct {
	Name          string // the model id clients send ("omni")
	KVBudgetBytes int64  // the engine's KV budget (for /metrics); 0 = unknown
	MaxNewTokens  int    // the default and ceiling of max_new_tokens
}

// NewEngineSynthesizer returns the Synthesizer over e. The caller runs the
// engine (e.Run) and closes it after the server has drained.
func NewEngineSynthesizer(e host.Engine, o EngineOptions) (*EngineSynthesizer, error) {
	if o.MaxNewTokens <= 0 {
		return nil, fmt.Errorf("serve: engine max_new_tokens %d, want > 0", o.MaxNewTokens)
	}
	ids := e.IDs()
	info := ModelInfo{
		Name: o.Name, ModelType: taskType(ids.ModelKind), Instructions: ids.TakesInstruct,
		SampleRate: SampleRate, MaxNewTokens: o.MaxNewTokens,
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
		v := Voice{Name: s}
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
	return &EngineSynthesizer{e: e, info: info, budget: o.KVBudgetBytes}, nil
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

// Info implements Synthesizer.
func (s *EngineSynthesizer) Info() ModelInfo { return s.info }

// Load implements Synthesizer.
func (s *EngineSynthesizer) Load() Load {
	l, err := s.e.Load()
	if err != nil {
		return Load{KVBytesBudget: s.budget}
	}
	return Load{Running: l.Running, Waiting: l.Waiting, KVBytesInUse: l.KVBytes, KVBytesBudget: s.budget}
}

// Start implements Synthesizer: the request built from text (every refusal
// names its field), the sampling overrides applied, submitted to the engine.
func (s *EngineSynthesizer) Start(ctx context.Context, req SpeechRequest) (AudioStream, error) {
	if req.TaskType != "" && req.TaskType != s.info.ModelType {
		return nil, &FieldError{Field: "task_type", Msg: fmt.Sprintf("%q: the model serves %s", req.TaskType, s.info.ModelType)}
	}
	r, err := s.e.Request(core.TextInput{Text: req.Input, Language: req.Language, Speaker: req.Voice, Instruct: req.Instructions})
	if err != nil {
		return nil, requestError(err)
	}
	if req.MaxNewTokens > 0 {
		r.MaxFrames = req.MaxNewTokens
	}
	if req.Seed != nil {
		// One seed for the request: the talker's generator takes it, the
		// predictor's its successor (two independent streams, as the CLI).
		t, p := int64(*req.Seed), int64(*req.Seed+1)
		r.Talker.Seed, r.Predictor.Seed = &t, &p
	}
	if req.Temperature != nil {
		r.Talker.Temperature, r.Predictor.Temperature = *req.Temperature, *req.Temperature
	}
	if req.TopP != nil {
		r.Talker.TopP, r.Predictor.TopP = *req.TopP, *req.TopP
	}
	if req.TopK != nil {
		r.Talker.TopK, r.Predictor.TopK = *req.TopK, *req.TopK
	}
	if req.RepetitionPenalty != nil {
		r.Talker.RepetitionPenalty = *req.RepetitionPenalty
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	st, err := s.e.Submit(sctx, r)
	if err != nil {
		cancel()
		return nil, submitError(err)
	}
	return &engineStream{s: st, cancel: cancel, input: len(r.TextIDs)}, nil
}

// requestError maps a refusal of the text request to the field it names.
func requestError(err error) error {
	msg := err.Error()
	for _, f := range []struct{ core, api string }{
		{"field text", "input"}, {"field instruct", "instructions"}, {"field language", "language"},
		{"field speaker", "voice"}, {"field layout", "input"},
	} {
		if strings.Contains(msg, f.core) {
			return &FieldError{Field: f.api, Msg: msg}
		}
	}
	if errors.Is(err, core.ErrInvalidRequest) {
		return &FieldError{Field: "input", Msg: msg}
	}
	return err
}

// submitError maps an engine refusal to serve's statuses.
func submitError(err error) error {
	switch {
	case errors.Is(err, core.ErrQueueFull):
		return &CapacityError{Reason: err.Error()}
	case errors.Is(err, core.ErrNoFit):
		return &CapacityError{Reason: err.Error()}
	case errors.Is(err, core.ErrClosed):
		return ErrDraining
	case errors.Is(err, core.ErrInvalidRequest):
		return &FieldError{Field: "input", Msg: err.Error()}
	}
	return err
}

// engineStream is one request's audio from the engine's stream.
type engineStream struct {
	s      *core.Stream
	cancel context.CancelFunc
	input  int

	mu     sync.Mutex
	frames int
	closed bool // Close was called
	res    Result
}

// Next implements AudioStream: the next chunk carrying PCM; io.EOF after
// the stream's end (an engine failure is returned as the error).
func (a *engineStream) Next(ctx context.Context) (Chunk, error) {
	for {
		ev, err := a.s.Next(ctx)
		if err == io.EOF {
			return Chunk{}, a.finish(a.s.End())
		}
		if err != nil {
			return Chunk{}, err
		}
		switch ev.Kind {
		case core.EventChunk:
			if len(ev.Chunk.PCM) > 0 {
				a.mu.Lock()
				a.frames += ev.Chunk.Frames
				a.mu.Unlock()
				return Chunk{PCM: ev.Chunk.PCM, Frames: ev.Chunk.Frames}, nil
			}
		case core.EventEnd:
			return Chunk{}, a.finish(ev.End)
		}
	}
}

// finish records the end and returns io.EOF, or the engine's error.
func (a *engineStream) finish(end core.End) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.res = Result{Frames: a.frames, InputTokens: a.input, OutputTokens: end.Frames, Steps: firstAudioPhases(a.s.Timeline())}
	switch end.Reason {
	case core.EndEOS:
		a.res.Reason = EndEOS
	case core.EndLength:
		a.res.Reason = EndMaxTokens
	case core.EndCancelled:
		a.res.Reason = EndCancelled
		return context.Canceled
	default:
		a.res.Reason = EndError
		if end.Err != nil {
			return end.Err
		}
		return errors.New("serve: the engine ended the stream with an error")
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

// Result implements AudioStream. Before the end was read (a client that
// hung up) it reports the frames so far, ended cancelled once Close was
// called.
func (a *engineStream) Result() Result {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.res.Reason == "" {
		r := Result{Frames: a.frames, InputTokens: a.input, OutputTokens: a.frames, Steps: firstAudioPhases(a.s.Timeline())}
		if a.closed {
			r.Reason = EndCancelled
		}
		return r
	}
	return a.res
}

// Close implements AudioStream: it cancels the stream, whose KV and decoder
// state the engine frees at its next step.
func (a *engineStream) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cancel()
	return nil
}
