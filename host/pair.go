package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// Pair is a native and a WASI engine over one load of the same weights
// (OpenPair): the same kernels, the same handles, for measuring one mode
// against the other in lockstep (package bench).
type Pair struct {
	Native, WASI Engine

	src   func() error // closes a source OpenPair opened
	wasi  *wasiEngine
	ncore *core.Engine
}

// OpenPair loads o's model once and returns a native and a WASI engine on
// it, each of o.MaxBatch streams, without a codec (codes only). The native
// side is core.Engine linked into this program, running on the host's
// handles; the WASI one the guest. Close closes both.
func OpenPair(ctx context.Context, o Options) (*Pair, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	o.Codec.Off = true
	if o.Files == nil && o.Model != "" {
		f, err := ResolveModel(o.Model)
		if err != nil {
			return nil, err
		}
		o.Files = &f
	}
	p := &Pair{src: func() error { return nil }}
	src := o.Source
	if src == nil {
		if src, err = o.Files.OpenSource(); err != nil {
			return nil, err
		}
		p.src = src.Close
	}
	nb := simd.NewBackend(o.Threads)
	s, rec, w, err := loadShared(src, nb, o.Precision, nil)
	if err != nil {
		nb.Close()
		p.src()
		return nil, err
	}
	if p.wasi, err = newWASIEngine(ctx, o, src, s, rec, nb); err != nil {
		s.table.release(ownerHost, func(h int32) { nb.Free(h) })
		nb.Close()
		p.src()
		return nil, err
	}
	cfg := o.Engine
	cfg.MaxBatch = o.MaxBatch
	if p.ncore, err = core.NewEngine(w, src.Config(), cfg, core.ModelOptions{MaxLen: o.MaxLen, Path: o.Path}); err != nil {
		p.wasi.Close()
		p.src()
		return nil, err
	}
	p.Native, p.WASI = &nativeEngine{e: p.ncore}, p.wasi
	return p, nil
}

// Close closes the native engine, then the WASI one (which frees the
// weights both ran on), then the source OpenPair opened.
func (p *Pair) Close() error {
	return errors.Join(p.ncore.Close(), p.wasi.Close(), p.src())
}

// GuestLoad returns the guest's own accounting at its last Load (step,
// model and encode ms over all its runs).
func (p *Pair) GuestLoad() (abi.Load, error) {
	if _, err := p.wasi.Load(); err != nil {
		return abi.Load{}, fmt.Errorf("host: guest load: %w", err)
	}
	return p.wasi.guestLoad(), nil
}

// HostTimeOf returns the time an engine Open or OpenPair returned spent in
// host functions so far (0 in Native mode and for any other Engine). For
// benchmarks.
func HostTimeOf(e Engine) time.Duration {
	if w, ok := e.(*wasiEngine); ok {
		return w.hostTime()
	}
	return 0
}
