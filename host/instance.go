package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/wasm/abi"
)

// ErrTrapped reports a guest call that trapped, timed out or failed inside
// the wasm runtime: the instance was discarded (with every object it held)
// and the next call starts a fresh one.
var ErrTrapped = errors.New("host: guest instance trapped and was replaced")

// instance is one live guest module with its cached exports. It is used by
// one goroutine at a time.
type instance struct {
	s     *hostState
	mod   api.Module
	owner owner
	ctx   context.Context
	stop  context.CancelFunc
	dog   *time.Timer // cancels ctx when a call overruns
	limit time.Duration

	alloc, call, ping, selftest, fault api.Function
	stack                              [2]uint64
}

// newInstance instantiates the guest (running its _initialize) with a
// fresh owner in s. limit bounds each call (0: no bound).
func (v *vm) newInstance(ctx context.Context, s *hostState, limit time.Duration) (*instance, error) {
	o := s.beginInstance()
	ictx, stop := context.WithCancel(ctx)
	mod, err := v.rt.InstantiateModule(ictx, v.compiled, v.moduleConfig())
	if err != nil {
		stop()
		s.endInstance(o)
		return nil, fmt.Errorf("host: instantiate guest: %w", err)
	}
	in := &instance{s: s, mod: mod, owner: o, ctx: ictx, stop: stop, limit: limit}
	for _, e := range []struct {
		f    *api.Function
		name string
	}{{&in.alloc, abi.ExportAlloc}, {&in.call, abi.ExportCall}, {&in.ping, abi.ExportPing},
		{&in.selftest, abi.ExportSelfTest}, {&in.fault, abi.ExportFault}} {
		*e.f = mod.ExportedFunction(e.name) // nil when absent (test guests); invoke refuses it
	}
	if limit > 0 {
		in.dog = time.AfterFunc(time.Hour, stop)
		in.dog.Stop()
	}
	return in, nil
}

// discard closes the module and frees every object it made.
func (in *instance) discard() {
	if in.mod == nil {
		return
	}
	if in.dog != nil {
		in.dog.Stop()
	}
	in.mod.Close(context.Background())
	in.stop()
	in.s.endInstance(in.owner)
	in.mod = nil
}

// invoke calls fn with args, watching the call with the watchdog; any
// error discards the instance.
func (in *instance) invoke(fn api.Function, args ...uint64) (uint64, error) {
	if in.mod == nil {
		return 0, ErrTrapped
	}
	if fn == nil {
		return 0, fmt.Errorf("host: guest lacks an export omni needs: %w", abi.ErrGuest)
	}
	in.s.current = in.owner
	st := in.stack[:]
	copy(st, args)
	if in.dog != nil {
		in.dog.Reset(in.limit)
	}
	err := fn.CallWithStack(in.ctx, st)
	if in.dog != nil {
		in.dog.Stop()
	}
	if err != nil {
		in.discard()
		return 0, fmt.Errorf("%w: %s: %v", ErrTrapped, fn.Definition().Name(), err)
	}
	return st[0], nil
}

// Ping calls omni_ping(x): x + the ABI version, through one host call.
func (in *instance) Ping(x int32) (int32, error) {
	r, err := in.invoke(in.ping, api.EncodeI32(x))
	return api.DecodeI32(r), err
}

// command sends one JSON command and decodes the reply; a reply with an
// error comes back as an error wrapping its abi status.
func (in *instance) command(c *abi.Command) (*abi.Reply, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("host: encode %s: %w", c.Op, err)
	}
	r, err := in.invoke(in.alloc, api.EncodeI32(int32(len(b))))
	if err != nil {
		return nil, err
	}
	p := api.DecodeU32(r)
	if p == 0 || !in.mod.Memory().Write(p, b) {
		in.discard()
		return nil, fmt.Errorf("%w: guest gave a bad command buffer %#x for %d bytes", ErrTrapped, p, len(b))
	}
	r, err = in.invoke(in.call, api.EncodeU32(p), api.EncodeI32(int32(len(b))))
	if err != nil {
		return nil, err
	}
	if int64(r) < 0 {
		return nil, fmt.Errorf("host: guest %s: %w", c.Op, abi.Status(-int64(r)).Err())
	}
	rp, rn := uint32(r>>32), uint32(r)
	raw, ok := in.mod.Memory().Read(rp, rn)
	if !ok {
		in.discard()
		return nil, fmt.Errorf("%w: guest reply %#x+%d outside memory", ErrTrapped, rp, rn)
	}
	var rep abi.Reply
	if err := json.Unmarshal(raw, &rep); err != nil {
		in.discard()
		return nil, fmt.Errorf("%w: guest reply: %v", ErrTrapped, err)
	}
	if rep.Error != "" {
		st := rep.Status
		if st == abi.StatusOK {
			st = abi.StatusGuest
		}
		return &rep, &GuestError{Op: c.Op, Msg: rep.Error, Status: st}
	}
	return &rep, nil
}

// GuestError is a command the guest refused or failed; Msg is its message.
// It unwraps to the abi sentinel of Status.
type GuestError struct {
	Op     string
	Msg    string
	Status abi.Status
}

// Error implements error.
func (e *GuestError) Error() string { return fmt.Sprintf("host: guest %s: %s", e.Op, e.Msg) }

// Unwrap returns the status's sentinel.
func (e *GuestError) Unwrap() error { return e.Status.Err() }
