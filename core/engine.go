package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omni-tts/omni/sampler"
	"github.com/omni-tts/omni/sched"
	"github.com/omni-tts/omni/stats"
)

// Engine generates codec frames for many streams at once. Submit may be
// called from any goroutine; Step (or Run, which calls it) from one.
type Engine struct {
	cfg   Config
	model Model
	dims  Dims
	ids   SpecialIDs
	epoch time.Time
	bpt   int64

	mu      sync.Mutex // guards waiting, closed, nextID
	waiting []*Stream
	closed  bool
	nextID  uint64
	wake    chan struct{}

	stepMu  sync.Mutex // serializes Step and Close
	running []*Stream
	kvUsed  int64
	steps   uint64
	stepsA  atomic.Uint64 // steps, readable while a Step runs
	held    int           // consecutive steps prefills were held
	stepEW  float64       // EWMA of step ms (throttle eta)
	prefEW  float64       // EWMA of prefill ms per request

	hop      *hop
	contract sampler.Qwen3TTS // the sampling contract of the model's ids
	talker   *sampler.Sampler
	pred     *sampler.Sampler
	pad      []float32 // tts_pad text row
	emb      *Embedder // prompt rows to embeddings

	// batch buffers, MaxBatch rows each
	hidden, logits, embeds []float32
	c0, codes              []int32
	seqs                   []Sequence
	treqs, preqs           []*sampler.Request
	chunks                 []*Chunk  // chunks cut this step, put after the decode
	firstWaits             []*Stream // flush's: streams whose first audio generation waits for
	promptBuf              []float32
	prefReady              []*Stream // streams of one batched prefill
	prefRows               []int     // their prompt rows
	pickErr                error
	rowErr                 []error // per batch row: the sampler refused it this frame
	pickT                  stats.Timer

	c engineCounters
}

// engineCounters are the engine's stats counters, resolved once.
type engineCounters struct {
	schedule, step, forward, prefill, sample, mtp, substep, loop *stats.Counter
}

// New returns an engine for cfg. Unless cfg.Inline, it starts the codec
// stage's goroutine; Close stops it.
func New(cfg Config) (*Engine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, model: cfg.Model, dims: cfg.Model.Dims(), ids: cfg.IDs, wake: make(chan struct{}, 1)}
	e.epoch = cfg.Clock.Now()
	switch {
	case e.ids.Hidden == 0:
		e.ids.Hidden = e.dims.Hidden
	case e.ids.Hidden != e.dims.Hidden:
		return nil, fmt.Errorf("core: ids give hidden size %d, the model has %d", e.ids.Hidden, e.dims.Hidden)
	}
	e.contract = sampler.DefaultQwen3TTS()
	e.contract.Vocab, e.contract.CodebookSize, e.contract.EOS = e.dims.Vocab, e.ids.CodebookSize, int(e.ids.CodecEos)
	e.bpt = e.model.KVBytesPerToken()
	if e.bpt <= 0 {
		return nil, fmt.Errorf("core: model reports %d KV bytes per token", e.bpt)
	}
	r := cfg.Stats
	e.c = engineCounters{
		schedule: r.Counter("sched.schedule_ms"), step: r.Counter("core.step_ms"),
		forward: r.Counter("model.forward_ms"), prefill: r.Counter("model.prefill_ms"),
		sample: r.Counter("model.sample_ms"), mtp: r.Counter("model.talker_mtp_ms"),
		substep: r.Counter("predictor.substep_ms"), loop: r.Counter("predictor.loop_ms"),
	}
	B, H := cfg.MaxBatch, e.dims.Hidden
	timer := func(prefix string) func(string, float64) {
		if r == nil {
			return nil
		}
		return func(name string, ms float64) { r.Add(prefix+name, ms) }
	}
	if e.talker, err = sampler.New(sampler.Config{MaxBatch: B, Vocab: e.dims.Vocab, Seed: cfg.Seed, Timer: timer("")}); err != nil {
		return nil, err
	}
	if e.pred, err = sampler.New(sampler.Config{MaxBatch: B, Vocab: e.dims.CodebookSize, Seed: cfg.Seed + 1, Timer: timer("predictor.")}); err != nil {
		return nil, err
	}
	e.pad = make([]float32, H)
	if err := e.model.TextEmbed(e.pad, []int32{e.ids.TTSPad}); err != nil {
		return nil, fmt.Errorf("core: embed tts_pad: %w", err)
	}
	e.emb = NewEmbedder(e.model)
	e.hidden = make([]float32, B*H)
	e.embeds = make([]float32, B*H)
	e.logits = make([]float32, B*e.dims.Vocab)
	e.c0 = make([]int32, B)
	e.codes = make([]int32, B*Codebooks)
	e.seqs = make([]Sequence, B)
	e.prefReady, e.prefRows = make([]*Stream, 0, B), make([]int, 0, B)
	e.treqs = make([]*sampler.Request, B)
	e.preqs = make([]*sampler.Request, B)
	e.rowErr = make([]error, B)
	e.running = make([]*Stream, 0, B)
	e.hop = newHop(cfg.HopDepth, cfg.Sink, e.now, r)
	e.hop.inline = cfg.Inline
	if cfg.Codec != nil {
		bound := cfg.MaxUnreadMS
		if bound == 0 {
			bound = DefaultMaxUnreadMS
		}
		if cfg.Inline {
			bound = -1
		}
		e.hop.stage = newCodecStage(cfg.Codec, bound, r)
		e.hop.stage.primeMax = cfg.ClonePrefixFrames
		e.hop.stage.primed.max = cfg.PrimedStates
		e.hop.stage.busyThreads = cfg.CodecBusyThreads
		e.hop.stage.genIdle = &e.hop.genIdle
		e.hop.stage.onBusy = cfg.CodecBusy
		if cfg.CodecBusyThreads > 0 {
			cfg.Codec.SetPassHook(e.hop.stage.pickThreads) // a long call follows generation's waits pass by pass
		}
	}
	if !cfg.Inline {
		go e.hop.run()
	}
	return e, nil
}

// now returns the engine clock: time since New.
func (e *Engine) now() time.Duration { return e.cfg.Clock.Now().Sub(e.epoch) }

// Now returns the engine clock (time since New), the time base of every
// timestamp the engine reports.
func (e *Engine) Now() time.Duration { return e.now() }

// Submit validates req, builds its prompt and queues it. The returned
// stream yields its frames as the engine steps; cancelling ctx ends it
// (EndCancelled) and frees its KV cache at the next step boundary.
func (e *Engine) Submit(ctx context.Context, req Request) (*Stream, error) {
	if err := req.validate(&e.ids, e.cfg.Limits); err != nil {
		return nil, err
	}
	H := e.dims.Hidden
	var prompt Prompt
	rows, trailing := 0, 0
	if req.Embedded != nil {
		if err := req.Embedded.validate(req.ID, H); err != nil {
			return nil, err
		}
		rows, trailing = len(req.Embedded.Rows)/H, len(req.Embedded.Trailing)/H
	} else {
		var err error
		if prompt, err = BuildPrompt(&req, &e.ids); err != nil {
			return nil, err
		}
		rows, trailing = len(prompt.Rows), len(prompt.Trailing)
	}
	cap := e.cfg.Limits.Cap(req.textLen(H), req.MaxFrames)
	positions := rows + cap
	if c := e.ids.Context; c > 0 && positions > c {
		return nil, &ContextError{TextTokens: req.textLen(H), PromptRows: rows, Frames: cap, Limit: c}
	}
	need := sched.KVBytesForSeqs(1, positions, e.bpt, sched.DefaultBlockSize)
	if e.cfg.KVBudgetBytes > 0 && need > e.cfg.KVBudgetBytes {
		return nil, &AdmissionError{Positions: positions, NeedBytes: need, BudgetBytes: e.cfg.KVBudgetBytes}
	}
	treq, err := e.contract.TalkerRequest(req.Talker)
	if err != nil {
		return nil, fmt.Errorf("%w: request %q: talker: %w", ErrInvalidRequest, req.ID, err)
	}
	treq.Reserve(cap)
	preq, err := e.contract.PredictorRequest(req.Predictor)
	if err != nil {
		return nil, fmt.Errorf("%w: request %q: predictor: %w", ErrInvalidRequest, req.ID, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	s := &Stream{
		req: req, ctx: ctx, submitted: e.now(),
		prompt: prompt, rows: rows, nTrailing: trailing, cap: cap, kvBytes: need, talker: treq, pred: preq,
		chunks: chunker{ramp: e.cfg.Chunks},
		notify: make(chan struct{}, 1), done: make(chan struct{}), admitted: make(chan struct{}),
		stage: e.hop.stage, clock: e.now,
	}
	s.live.vocab = e.ids.TextVocab
	// The hook is set before the stream is published: once it is in
	// e.waiting the step goroutine may end it (and call stopCtx) at once.
	s.stopCtx = context.AfterFunc(ctx, func() {
		s.cancelled.Store(true)
		e.kick()
	})
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		s.stopCtx()
		return nil, ErrClosed
	}
	if len(e.waiting) >= e.cfg.MaxWaiting {
		n := len(e.waiting)
		e.mu.Unlock()
		s.stopCtx()
		return nil, fmt.Errorf("%w: %d requests waiting", ErrQueueFull, n)
	}
	e.nextID++
	s.id = e.nextID
	e.waiting = append(e.waiting, s)
	e.mu.Unlock()
	e.kick()
	return s, nil
}

// kick wakes Run.
func (e *Engine) kick() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Run steps the engine until ctx is cancelled or the engine is closed,
// sleeping while there is no work. A step error does not stop it: Step has
// already ended the streams it concerned with that error (a request's own
// failure, such as non-finite logits, ends that request alone), and the
// engine goes on serving the others. It returns nil after Close, else
// ctx's error.
func (e *Engine) Run(ctx context.Context) error {
	for {
		busy, err := e.Step()
		if errors.Is(err, ErrClosed) {
			return nil
		}
		if busy {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.wake:
		}
	}
}

// Load describes the engine's current load.
type Load struct {
	Running, Waiting int
	KVBytes          int64 // KV reserved by running streams
	Steps            uint64
	// Decoders is the codec decoder states open (streams whose audio is
	// being decoded); 0 without a codec.
	Decoders int
}

// Load returns the current load. Call it between steps (or from the step
// goroutine) for exact running figures.
func (e *Engine) Load() Load {
	e.stepMu.Lock()
	l := Load{Running: len(e.running), KVBytes: e.kvUsed, Steps: e.steps}
	e.stepMu.Unlock()
	if st := e.hop.stage; st != nil {
		l.Decoders = int(st.live.Load())
	}
	e.mu.Lock()
	l.Waiting = len(e.waiting)
	e.mu.Unlock()
	return l
}

// Err returns the codec stage's first error.
func (e *Engine) Err() error { return e.hop.Err() }

// Close ends every stream (EndCancelled with ErrClosed), frees their KV,
// drains the codec stage and frees the model's buffers. It waits for a
// Step in progress.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	waiting := e.waiting
	e.waiting = nil
	e.mu.Unlock()
	e.stepMu.Lock()
	defer e.stepMu.Unlock()
	for _, s := range waiting {
		e.finish(s, EndCancelled, ErrClosed)
	}
	for _, s := range e.running {
		e.finish(s, EndCancelled, ErrClosed)
	}
	e.running = e.running[:0]
	e.flush()
	e.hop.close()
	e.kick()
	return e.model.Close()
}

// stepsNow returns the decode steps run so far without waiting for Step.
func (e *Engine) stepsNow() uint64 { return e.stepsA.Load() }
