package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// wasiEngine runs the control core as a guest instance. The weights live
// here (loaded once through a recorder); each instance replays their
// handles. A trap discards the instance: the streams it held end with an
// error, later submissions go to a fresh instance.
type wasiEngine struct {
	*texter
	opts   Options
	s      *hostState
	rec    *recorder
	nb     *simd.Backend
	v      *vm
	ctx    context.Context
	spec   abi.EngineSpec
	ownSrc predictor.Source
	w      *predictor.Weights // the host's weights, on guest handles (nil in an OpenPair)
	// stopPrivate stops the weights' private copy behind the load (Close).
	stopPrivate func()

	mu      sync.Mutex // serializes every guest call (Submit, Step, Load, Close)
	in      *instance
	streams map[uint64]*wasiStream // streams inside the current instance
	nextID  uint64
	closed  bool
	wake    chan struct{}
	epoch   time.Time // the host clock's zero for Submitted and Arrivals
	replace uint64    // instances discarded so far
	guest   abi.Load  // the guest's accounting at the last Load
}

// openWASI loads the weights natively, builds the runtime and the first
// instance.
func openWASI(ctx context.Context, o Options, src predictor.Source, nb *simd.Backend) (*wasiEngine, error) {
	s, rec, w, err := loadShared(src, nb, o.Precision, func(b predictor.Backend) (*predictor.Weights, error) {
		return o.cache.loadWeights(o.Model, src, nb, b, o.Precision)
	})
	if err != nil {
		return nil, err
	}
	var cl *abi.CodecLoad
	if load := o.codecLoader(); load != nil {
		// The guest runs the codec stage inline in its engine: the host
		// loads the codec natively through the recorder (its weights stay
		// host-owned) and each instance replays the load.
		spec := o.Codec.Spec
		if spec == "" {
			spec = o.Model
		}
		if _, cl, err = recordCodec(s, func(b codec.Backend) (*codec.Model, error) {
			return o.cache.openCodec(spec, load, nb, b, o.Codec.Precision)
		}); err != nil {
			s.table.release(ownerHost, func(h int32) { nb.Free(h) })
			return nil, err
		}
	}
	o.codecLoad = cl
	e, err := newWASIEngine(ctx, o, src, s, rec, nb)
	if err != nil {
		s.table.release(ownerHost, func(h int32) { nb.Free(h) })
		return nil, err
	}
	e.w = w
	return e, nil
}

// loadShared loads src's weights on nb through a recorder: the handles are
// host-owned entries of a fresh state's table, logged for guest replay.
// The returned weights use guest handles (run them on rec).
func loadShared(src predictor.Source, nb *simd.Backend, prec predictor.Precision, load func(predictor.Backend) (*predictor.Weights, error)) (*hostState, *recorder, *predictor.Weights, error) {
	s := newHostState(nb, src, 16<<30)
	rec := &recorder{s: s}
	if load == nil {
		load = func(b predictor.Backend) (*predictor.Weights, error) { return predictor.LoadWeights(src, b, prec) }
	}
	w, err := load(rec)
	if err != nil {
		s.table.release(ownerHost, func(h int32) { nb.Free(h) })
		return nil, nil, nil, err
	}
	rec.guards = w.Guards
	return s, rec, w, nil
}

// newWASIEngine builds the runtime over loaded weights and starts the
// first instance. Close frees the weights and nb.
func newWASIEngine(ctx context.Context, o Options, src predictor.Source, s *hostState, rec *recorder, nb *simd.Backend) (*wasiEngine, error) {
	cfg, err := json.Marshal(src.Config())
	if err != nil {
		return nil, fmt.Errorf("host: encode model config: %w", err)
	}
	set, err := o.engineSettings()
	if err != nil {
		return nil, fmt.Errorf("host: encode engine settings: %w", err)
	}
	guards, err := json.Marshal(rec.guards)
	if err != nil {
		return nil, fmt.Errorf("host: encode guarded channels: %w", err)
	}
	tx, err := o.text.get()
	if err != nil {
		return nil, err
	}
	if tx == nil { // OpenPair and tests build the engine without Open
		if tx, err = newTexter(o.Files, src.Config()); err != nil {
			return nil, err
		}
	}
	v, err := newVM(ctx, s, vmConfig{module: o.GuestModule, pages: o.MemoryPages, cacheDir: o.CacheDir, stderr: o.Stderr, fsys: o.FS, interruptible: o.Interruptible})
	if err != nil {
		return nil, err
	}
	e := &wasiEngine{
		texter: tx,
		opts:   o, s: s, rec: rec, nb: nb, v: v, ctx: context.WithoutCancel(ctx),
		spec: abi.EngineSpec{
			Config: cfg, Precision: o.Precision.String(), Created: rec.log, Guards: guards,
			MaxBatch: o.MaxBatch, MaxLen: o.MaxLen, Path: o.Path.String(), Engine: set, Codec: o.codecLoad,
		},
		streams: map[uint64]*wasiStream{},
		wake:    make(chan struct{}, 1),
		epoch:   time.Now(),
	}
	e.mu.Lock()
	_, err = e.instance()
	e.mu.Unlock()
	if err != nil {
		v.close(context.Background())
		return nil, err
	}
	return e, nil
}

// instance returns the live instance, starting a fresh one (and its
// engine) if the last one was discarded. e.mu is held.
func (e *wasiEngine) instance() (*instance, error) {
	if e.in != nil && e.in.mod != nil {
		return e.in, nil
	}
	limit := time.Duration(0)
	if e.opts.Interruptible {
		limit = e.opts.CallTimeout
	}
	in, err := e.v.newInstance(e.ctx, e.s, limit)
	if err != nil {
		return nil, err
	}
	if _, err := in.command(&abi.Command{Op: abi.CmdCreate, Model: &e.spec}); err != nil {
		in.discard()
		return nil, fmt.Errorf("host: guest engine: %w", err)
	}
	// One KV budget: the guest's engine admits streams against
	// Engine.KVBudgetBytes (block-rounded reservations, never below what a
	// stream's cache takes); the host, which cannot trust the guest's count,
	// lets the instance hold what its engine built plus that same budget.
	if kv := e.opts.Engine.KVBudgetBytes; kv > 0 {
		if cl := e.opts.codecLoad; cl != nil {
			// and each stream's codec window state (host memory)
			if cfg, err := codec.ParseConfig(cl.Config); err == nil {
				kv += int64(e.opts.MaxBatch) * codecStreamBytes(cfg)
			}
		}
		e.s.budget = min(e.s.ceiling, e.s.used+kv)
	}
	e.in = in
	return in, nil
}

// lost ends every stream of a discarded instance with err.
func (e *wasiEngine) lost(err error) {
	e.replace++
	for id, st := range e.streams {
		st.feed.Fail(err)
		delete(e.streams, id)
	}
	e.in = nil
}

// Submit implements Engine.
func (e *wasiEngine) Submit(ctx context.Context, req core.Request) (*core.Stream, error) {
	if req.Live {
		return nil, fmt.Errorf("%w: request %q: live text needs the native engine (it does not cross to the guest)", core.ErrInvalidRequest, req.ID)
	}
	raw, err := json.Marshal(&req)
	if err != nil {
		return nil, fmt.Errorf("host: encode request %q: %w", req.ID, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, core.ErrClosed
	}
	in, err := e.instance()
	if err != nil {
		return nil, err
	}
	e.nextID++
	id := e.nextID
	if _, err := in.command(&abi.Command{Op: abi.CmdSubmit, Stream: id, Request: raw}); err != nil {
		if errors.Is(err, ErrTrapped) {
			e.lost(err)
		}
		return nil, err
	}
	st := &wasiStream{feed: core.NewFeed(ctx, req, e.clock(), e.kick)}
	e.streams[id] = st
	e.kick()
	return st.feed.Stream(), nil
}

// clock is the host clock of Submitted and Arrivals: time since Open.
func (e *wasiEngine) clock() time.Duration { return time.Since(e.epoch) }

// kick wakes Run.
func (e *wasiEngine) kick() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Step implements Engine: it forwards cancellations, runs one guest step
// and hands the events to their streams. A trap ends the streams of the
// discarded instance and is returned (wrapping ErrTrapped); the engine
// keeps serving with a fresh instance.
func (e *wasiEngine) Step() (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false, core.ErrClosed
	}
	in, err := e.instance()
	if err != nil {
		return false, err
	}
	// A reader over the unread-audio bound holds its guest stream (its
	// chunks wait in the guest as codes); catching up releases it.
	if bound := e.unreadBound(); bound > 0 {
		for id, st := range e.streams {
			over := st.feed.Stream().Unread() > bound
			if over == st.held {
				continue
			}
			op := abi.CmdRelease
			if over {
				op = abi.CmdHold
			}
			if _, err := in.command(&abi.Command{Op: op, Stream: id}); err != nil && errors.Is(err, ErrTrapped) {
				e.lost(err)
				return false, err
			}
			st.held = over
		}
	}
	for id, st := range e.streams {
		if !st.cancelSent && st.feed.Cancelled() {
			st.cancelSent = true
			if _, err := in.command(&abi.Command{Op: abi.CmdCancel, Stream: id}); err != nil {
				if errors.Is(err, ErrTrapped) {
					e.lost(err)
					return false, err
				}
			}
		}
	}
	rep, err := in.command(&abi.Command{Op: abi.CmdStep})
	if err != nil && errors.Is(err, ErrTrapped) {
		e.lost(err)
		return false, err
	}
	if rep != nil {
		for i := range rep.Events {
			ev := &rep.Events[i]
			if st, ok := e.streams[ev.Stream]; ok {
				ce := event(ev)
				if ev.PCM != nil {
					// the samples, copied out of guest memory before the next call
					pcm, perr := in.pcm(*ev.PCM, nil)
					if perr != nil {
						in.discard()
						e.lost(perr)
						return false, perr
					}
					ce.Chunk.PCM = pcm
				}
				if st.feed.Push(ce, e.clock()) {
					delete(e.streams, ev.Stream)
				}
			}
		}
	}
	busy := rep != nil && rep.Busy
	return busy, err
}

// Run implements Engine: it steps while there is work and sleeps until a
// submission otherwise. Traps do not stop it (their streams have ended).
func (e *wasiEngine) Run(ctx context.Context) error {
	return e.run(ctx)
}

// Start implements Engine. A failed loop fails every stream with its error.
func (e *wasiEngine) Start(ctx context.Context) func() error {
	return start(ctx, e.run, func(err error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		for id, st := range e.streams {
			st.feed.Fail(fmt.Errorf("host: engine stopped: %w", err))
			delete(e.streams, id)
		}
	})
}

// run is Run.
func (e *wasiEngine) run(ctx context.Context) error {
	for {
		busy, err := e.Step()
		if err != nil {
			if errors.Is(err, core.ErrClosed) {
				return nil
			}
			if !errors.Is(err, ErrTrapped) {
				return err
			}
		}
		if busy {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		var poll <-chan time.Time
		if e.holding() {
			// a held stream's reader may catch up: look again soon
			poll = time.After(10 * time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.wake:
		case <-poll:
		}
	}
}

// unreadBound returns the unread audio (samples) over which a stream is
// held (Engine.MaxUnreadMS; 0: none, or no codec).
func (e *wasiEngine) unreadBound() int {
	if e.opts.codecLoad == nil {
		return 0
	}
	ms := e.opts.Engine.MaxUnreadMS
	if ms == 0 {
		ms = core.DefaultMaxUnreadMS
	}
	if ms < 0 {
		return 0
	}
	return max(1, int(ms/core.FrameMS)) * 1920
}

// holding reports whether some stream is held.
func (e *wasiEngine) holding() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, st := range e.streams {
		if st.held {
			return true
		}
	}
	return false
}

// Load implements Engine.
func (e *wasiEngine) Load() (core.Load, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return core.Load{}, core.ErrClosed
	}
	in, err := e.instance()
	if err != nil {
		return core.Load{}, err
	}
	rep, err := in.command(&abi.Command{Op: abi.CmdLoad})
	if err != nil {
		if errors.Is(err, ErrTrapped) {
			e.lost(err)
		}
		return core.Load{}, err
	}
	e.guest = *rep.Load
	l := rep.Load
	return core.Load{Running: l.Running, Waiting: l.Waiting, KVBytes: l.KVBytes, Steps: l.Steps}, nil
}

// Mode implements Engine.
func (e *wasiEngine) Mode() Mode { return WASI }

// weights implements measured.
func (e *wasiEngine) weights() *predictor.Weights { return e.w }

// hostCalls implements measured.
func (e *wasiEngine) hostCalls() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s.calls
}

// guestLoad returns the guest's accounting from the last Load call.
func (e *wasiEngine) guestLoad() abi.Load {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.guest
}

// hostTime returns the time spent in host functions so far.
func (e *wasiEngine) hostTime() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s.hostTime
}

// Replaced returns how many guest instances were discarded after a trap.
func (e *wasiEngine) Replaced() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.replace
}

// probe runs the guest's model probe (tests).
func (e *wasiEngine) probe(spec *abi.ProbeSpec) (*abi.Reply, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in, err := e.instance()
	if err != nil {
		return nil, err
	}
	rep, err := in.command(&abi.Command{Op: abi.CmdProbe, Probe: spec})
	if err != nil && errors.Is(err, ErrTrapped) {
		e.lost(err)
	}
	return rep, err
}

// fault makes the current instance fail on purpose (tests); it returns
// the call's error.
func (e *wasiEngine) fault(kind int32) (int32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in, err := e.instance()
	if err != nil {
		return 0, err
	}
	r, err := in.invoke(in.fault, uint64(uint32(kind)))
	if err != nil {
		e.lost(err)
	}
	return int32(r), err
}

// Close implements Engine: it closes the guest engine, the runtime, the
// host's weights and the backend.
func (e *wasiEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if e.stopPrivate != nil {
		e.stopPrivate()
	}
	var errs []error
	if e.in != nil && e.in.mod != nil {
		if _, err := e.in.command(&abi.Command{Op: abi.CmdClose}); err != nil {
			errs = append(errs, err)
		}
		e.in.discard()
	}
	for id, st := range e.streams {
		st.feed.Fail(core.ErrClosed)
		delete(e.streams, id)
	}
	errs = append(errs, e.v.close(context.Background()))
	e.s.table.release(ownerHost, func(h int32) { e.nb.Free(h) })
	e.nb.Close()
	if e.ownSrc != nil {
		errs = append(errs, e.ownSrc.Close())
	}
	e.kick()
	return errors.Join(errs...)
}
