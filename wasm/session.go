package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/wasm/abi"
)

// Session is the guest's engine: the control core (graph, sampler,
// scheduler) on a guest Backend, driven one JSON command at a time (see
// abi.Command). It runs with core.Config.Inline, so it starts no goroutine
// and advances only when the host sends "step".
type Session struct {
	b       *Backend
	src     *Source
	weights *predictor.Weights
	model   core.Model
	engine  *core.Engine
	streams map[uint64]*stream
	poll    context.Context // cancelled: makes Stream.Next a non-blocking poll
	pcm     PCMStage        // samples the last reply handed to the host
	codec   *codec.Model    // the engine's codec stage decoder (nil: codes only)

	times            modelTimes // the model's calls
	stepNS, encodeNS int64      // time in Step, in drain+encode
	steps            uint64
}

// stream is one submitted request.
type stream struct {
	s      *core.Stream
	cancel context.CancelFunc
}

// NewSession returns an empty session; "create" builds its engine.
func NewSession() *Session {
	poll, cancel := context.WithCancel(context.Background())
	cancel()
	return &Session{streams: map[uint64]*stream{}, poll: poll}
}

// Call runs one command and returns the JSON reply. It never panics on bad
// input: a malformed command gets a reply whose Error says why.
func (s *Session) Call(cmd []byte) []byte {
	s.pcm.Reset() // the host has copied the previous reply's samples
	var c abi.Command
	var r abi.Reply
	if err := json.Unmarshal(cmd, &c); err != nil {
		r.Error = fmt.Sprintf("wasm: command: %v", err)
	} else if err := s.run(&c, &r); err != nil {
		r.Error, r.Status = err.Error(), abi.Code(err)
		if r.Status == abi.StatusInternal {
			r.Status = abi.StatusGuest
		}
	}
	out, err := json.Marshal(&r)
	if err != nil {
		out, _ = json.Marshal(&abi.Reply{Error: fmt.Sprintf("wasm: reply: %v", err), Status: abi.StatusGuest})
	}
	return out
}

// run dispatches one command.
func (s *Session) run(c *abi.Command, r *abi.Reply) error {
	switch c.Op {
	case abi.CmdSuite:
		return s.suite(c.Suite, r)
	case abi.CmdCodec:
		return s.decodeCodec(c.Codec, r)
	}
	if c.Op != abi.CmdCreate && s.engine == nil {
		return fmt.Errorf("wasm: %s before create", c.Op)
	}
	switch c.Op {
	case abi.CmdCreate:
		return s.create(c.Model)
	case abi.CmdSubmit:
		return s.submit(c.Stream, c.Request)
	case abi.CmdHold, abi.CmdRelease:
		st, ok := s.streams[c.Stream]
		if !ok {
			return nil // ended in the meantime: nothing to hold
		}
		st.s.Hold(c.Op == abi.CmdHold)
		return nil
	case abi.CmdCancel:
		st, ok := s.streams[c.Stream]
		if !ok {
			return fmt.Errorf("wasm: cancel of unknown stream %d", c.Stream)
		}
		st.cancel()
		runtime.Gosched() // let the engine's cancel hook run
		return nil
	case abi.CmdStep:
		t0 := time.Now()
		busy, err := s.engine.Step()
		t1 := time.Now()
		r.Busy = busy
		r.Events = s.drain(r.Events)
		s.stepNS += int64(t1.Sub(t0))
		s.encodeNS += int64(time.Since(t1))
		s.steps++
		return err
	case abi.CmdLoad:
		l := s.engine.Load()
		r.Load = &abi.Load{Running: l.Running, Waiting: l.Waiting, KVBytes: l.KVBytes, Steps: l.Steps,
			GuestSteps: s.steps, StepMS: float64(s.stepNS) / 1e6, ModelMS: float64(s.times.ns) / 1e6, PickMS: float64(s.times.pickNS) / 1e6, EncodeMS: float64(s.encodeNS) / 1e6,
			Prefills: s.times.prefills, BatchPrefills: s.times.batchPrefills, BatchPrefilled: s.times.batchPrefilled}
		return nil
	case abi.CmdProbe:
		if c.Probe == nil {
			return fmt.Errorf("wasm: probe without a spec")
		}
		emb := make([]float32, len(c.Probe.Embeds))
		for i, b := range c.Probe.Embeds {
			emb[i] = math.Float32frombits(b)
		}
		var err error
		r.Logits, r.Codes, err = Probe(s.model, emb, c.Probe.Steps)
		return err
	case abi.CmdClose:
		return s.Close()
	}
	return fmt.Errorf("wasm: unknown command %q", c.Op)
}

// create loads the model by replaying the host's load and starts the engine.
func (s *Session) create(spec *abi.EngineSpec) error {
	if s.engine != nil {
		return fmt.Errorf("wasm: create: the session already has an engine")
	}
	if spec == nil {
		return fmt.Errorf("wasm: create without a model spec")
	}
	var cfg predictor.Config
	if err := json.Unmarshal(spec.Config, &cfg); err != nil {
		return fmt.Errorf("wasm: create: model config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("wasm: create: %w", err)
	}
	prec, err := predictor.ParsePrecision(spec.Precision)
	if err != nil {
		return err
	}
	path, err := predictor.ParsePath(spec.Path)
	if err != nil {
		return err
	}
	var ec core.Config
	if len(spec.Engine) > 0 {
		if err := json.Unmarshal(spec.Engine, &ec); err != nil {
			return fmt.Errorf("wasm: create: engine settings: %w", err)
		}
	}
	s.b = NewBackend()
	if v, err := s.b.Version(); err != nil || v != abi.Version {
		return fmt.Errorf("wasm: host ABI version %d (%v), guest speaks %d", v, err, abi.Version)
	}
	var guards predictor.Guards
	if len(spec.Guards) > 0 {
		if err := json.Unmarshal(spec.Guards, &guards); err != nil {
			return fmt.Errorf("wasm: create: guarded channels: %w", err)
		}
	}
	s.src = NewSource(&cfg, s.b)
	err = s.b.Replay(spec.Created, func() error {
		var err error
		s.weights, err = predictor.LoadWeightsGuarded(s.src, s.b, prec, &guards)
		return err
	})
	if err != nil {
		return err
	}
	ec.Model, ec.IDs, ec.MaxBatch = nil, core.SpecialIDs{}, spec.MaxBatch
	ec.Sink, ec.Clock, ec.Stats, ec.Inline, ec.Codec = nil, nil, nil, true, nil
	if spec.Codec != nil {
		// The codec stage runs inline in Step, on the codec graph replayed
		// from the host's load (its kernels are host functions).
		if s.codec, err = s.b.ReplayCodec(spec.Codec); err != nil {
			return fmt.Errorf("wasm: create: codec: %w", err)
		}
		ec.Codec = s.codec
	}
	wrap := func(m core.Model) core.Model { s.model = timed(m, &s.times); return s.model }
	if s.engine, err = core.NewEngine(s.weights, &cfg, ec, core.ModelOptions{MaxLen: spec.MaxLen, Path: path, Wrap: wrap}); err != nil {
		s.model = nil
		return err
	}
	return nil
}

// submit queues a request as stream id.
func (s *Session) submit(id uint64, raw json.RawMessage) error {
	if _, dup := s.streams[id]; dup || id == 0 {
		return fmt.Errorf("wasm: submit: stream id %d in use or zero", id)
	}
	req, err := decodeRequest(raw)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := s.engine.Submit(ctx, req)
	if err != nil {
		cancel()
		return err
	}
	s.streams[id] = &stream{s: st, cancel: cancel}
	return nil
}

// decodeRequest decodes a submitted request. A field this guest does not
// know (a host built from newer sources) is refused by name, never
// dropped: dropping it would serve another request than the one asked for
// (a voice clone as a plain voice).
func decodeRequest(raw []byte) (core.Request, error) {
	var req core.Request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return core.Request{}, fmt.Errorf("wasm: submit: request (a guest built from other sources than the host?): %w", err)
	}
	return req, nil
}

// drain appends every queued event of every stream (in stream id order) and
// forgets streams that ended.
func (s *Session) drain(out []abi.Event) []abi.Event {
	ids := make([]uint64, 0, len(s.streams))
	for id := range s.streams {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		st := s.streams[id]
		for {
			ev, err := st.s.Next(s.poll)
			if err != nil {
				break
			}
			w := wire(id, &ev)
			if ev.Kind == core.EventChunk && len(ev.Chunk.PCM) > 0 {
				ref := s.pcm.Put(ev.Chunk.PCM) // binary, in guest memory until the next command
				w.PCM = &ref
			}
			out = append(out, w)
			if ev.Kind == core.EventEnd {
				st.cancel()
				delete(s.streams, id)
				break
			}
		}
	}
	return out
}

// wire converts a core.Event for the host.
func wire(id uint64, ev *core.Event) abi.Event {
	w := abi.Event{Stream: id, Kind: int(ev.Kind)}
	switch ev.Kind {
	case core.EventFrame:
		f := &ev.Frame
		w.Index, w.Codes, w.At, w.Step = f.Index, f.Codes, int64(f.At), f.Step
	case core.EventChunk:
		c := &ev.Chunk
		w.Index, w.First, w.Frames, w.LeftContext, w.Final = c.Index, c.First, c.Frames, c.LeftContext, c.Final
		w.ReadyAt, w.PutAt, w.GotAt, w.DecodedAt = int64(c.ReadyAt), int64(c.PutAt), int64(c.GotAt), int64(c.DecodedAt)
	case core.EventEnd:
		e := &ev.End
		w.Reason, w.Index, w.Cap = int(e.Reason), e.Frames, e.Cap
		if e.Err != nil {
			w.Err = e.Err.Error()
		}
	}
	return w
}

// Close ends every stream and frees the model's objects (the host's
// weights stay with the host).
func (s *Session) Close() error {
	var errs []error
	if s.engine != nil {
		errs = append(errs, s.engine.Close())
		s.engine = nil
	}
	if s.codec != nil {
		errs = append(errs, s.codec.Close())
		s.codec = nil
	}
	for id, st := range s.streams {
		st.cancel()
		delete(s.streams, id)
	}
	s.model = nil
	s.weights = nil
	return errors.Join(errs...)
}
