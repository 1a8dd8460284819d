package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// Mode chooses where the control core runs.
type Mode int

const (
	// Native links the control core into this program.
	Native Mode = iota
	// WASI runs the control core as the embedded WASI guest under wazero,
	// with the kernels as host functions.
	WASI
)

// String returns "native" or "wasi".
func (m Mode) String() string {
	if m == WASI {
		return "wasi"
	}
	return "native"
}

// Options configure Open. Model (or Source) is required; every other zero
// field takes the default its comment names.
type Options struct {
	// Model is a model spec (ParseModelSpec): a Hugging Face checkpoint
	// directory, a pulled ORG/NAME[@REV] or "synth:SIZE[+outliers][@SEED]".
	// Open resolves it once into the weights, codec and tokenizer.
	Model string
	// Files, when set, is Model already resolved (ResolveModel): Open uses
	// it instead of resolving Model again.
	Files *ModelFiles
	// Source, when set, is used instead of opening the weights (and not
	// closed by Close). With neither Model nor Files the engine has the
	// built-in tokenizer and no codec unless Codec.Spec names one.
	Source predictor.Source
	// Precision of the matrices (default predictor.Int8).
	Precision predictor.Precision
	// Mode is Native (default) or WASI.
	Mode Mode

	MaxBatch int            // streams per pass (default 8)
	MaxLen   int            // talker positions per sequence; 0 = the model's
	Path     predictor.Path // code predictor path

	// Engine holds the engine settings (core.Config): batch budget, limits,
	// chunk schedule (the fixed ramp, or the Adaptive controller), throttle,
	// seed. Both modes get the same settings (in WASI mode as JSON). Open
	// sets its Model, IDs and MaxBatch; in WASI mode Sink, Clock and Stats
	// are not used (the guest runs its engine with Inline and the WASI
	// clock).
	Engine core.Config

	// Threads for the talker and code predictor kernels (default
	// simd.DefaultThreads()): the deploy profile's ModelThreads.
	Threads int
	// Codec configures the codec stage (on by default: streams carry PCM);
	// its Threads is the deploy profile's CodecThreads.
	Codec CodecSettings
	// MemoryPages caps the guest's memory (default DefaultMemoryPages).
	MemoryPages uint32
	// CacheDir holds compiled guests (default <user cache dir>/omni/wazero;
	// "-" keeps them in memory only).
	CacheDir string
	// Stderr receives the guest's stderr (panic messages); nil discards it.
	Stderr io.Writer
	// FS, when set, is mounted read-only as the guest's root; by default the
	// guest has no filesystem.
	FS fs.FS
	// Interruptible compiles the guest with context checks so that
	// CallTimeout can stop a guest stuck in a loop. They slow the control
	// core in wasm about threefold (measured), so they are off by default:
	// a Go guest that deadlocks or panics traps by itself either way.
	Interruptible bool
	// CallTimeout bounds one guest call when Interruptible (default 2
	// minutes); an overrun discards the instance like a trap.
	CallTimeout time.Duration
	// GuestModule replaces the embedded guest (tests).
	GuestModule []byte
	// WeightCache is the prepared-weights cache (wcache.go; off by default).
	WeightCache WeightCache

	codecLoad *abi.CodecLoad // WASI: the codec load each instance replays
	text      *textLoad      // the model's tokenizer, loading since Open began
	cache     *cacheRun      // the weight cache of this Open (nil: off)
}

// Engine is an omni engine in either mode behind one interface: Submit a
// core.Request, read its Stream, drive the engine with Run (or Step).
type Engine interface {
	// Submit validates req and queues it (see core.Engine.Submit). The
	// stream is a core.Stream in either mode (in WASI mode a core.Feed
	// fills it with the guest's events; Submitted and Arrivals are then on
	// the host's clock).
	Submit(ctx context.Context, req core.Request) (*core.Stream, error)
	// Request builds a request from text (core.SpecialIDs.TextRequest):
	// the model's tokenizer and special ids, language and speaker checked
	// against its tables, the released sampling defaults. Tokenization
	// runs on the host in both modes (the guest receives ids).
	Request(in core.TextInput) (core.Request, error)
	// IDs returns the model's special ids (languages and speakers).
	IDs() core.SpecialIDs
	// Step runs one scheduler step and reports whether work remains.
	Step() (busy bool, err error)
	// Run steps until ctx is done or the engine is closed.
	Run(ctx context.Context) error
	// Start runs Run on its own goroutine until ctx is done or stop is
	// called. stop cancels the loop, waits for it to return and returns
	// its error (nil when it ended by stop or ctx). When Run fails, every
	// stream ends with an error at once (no reader is left waiting) and
	// stop returns the failure; a panic in the loop is a *PanicError.
	Start(ctx context.Context) (stop func() error)
	// Load returns the engine's current load.
	Load() (core.Load, error)
	// Mode returns where the control core runs.
	Mode() Mode
	// Close ends every stream and frees the engine.
	Close() error
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() (Options, error) {
	if o.Model == "" && o.Files == nil && o.Source == nil {
		return o, fmt.Errorf("host: options name no model")
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = 8
	}
	if o.MaxBatch < 1 {
		return o, fmt.Errorf("host: max batch %d below 1", o.MaxBatch)
	}
	if o.Threads == 0 {
		o.Threads = simd.DefaultThreads()
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = 2 * time.Minute
	}
	if o.Codec.Threads < 0 {
		return o, fmt.Errorf("host: codec threads %d below 0", o.Codec.Threads)
	}
	if o.Mode != Native && o.Mode != WASI {
		return o, fmt.Errorf("host: mode %d unknown", int(o.Mode))
	}
	return o, nil
}

// Open loads the model and returns an engine in opts.Mode. The weights are
// always loaded natively on this side; in WASI mode the guest receives only
// their handles.
func Open(ctx context.Context, opts Options) (Engine, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Files == nil && opts.Model != "" {
		f, err := ResolveModel(opts.Model)
		if err != nil {
			return nil, err
		}
		opts.Files = &f
	}
	src, own := opts.Source, false
	if src == nil {
		if src, err = opts.Files.OpenSource(); err != nil {
			return nil, err
		}
		own = true
	}
	closeSrc := func() {
		if own {
			src.Close()
		}
	}
	opts.text = loadText(opts.Files, src.Config()) // while the weights load
	nb := simd.NewBackend(opts.Threads)
	opts.cache = newCacheRun(opts.WeightCache)
	var e Engine
	if opts.Mode == WASI {
		e, err = openWASI(ctx, opts, src, nb)
	} else {
		e, err = openNative(opts, src, nb)
	}
	opts.cache.wait()
	if err != nil {
		nb.Close()
		closeSrc()
		return nil, err
	}
	stop := opts.cache.privatize(ctx)
	switch x := e.(type) {
	case *nativeEngine:
		x.stopPrivate = stop
		if own {
			x.src = src
		}
	case *wasiEngine:
		x.stopPrivate = stop
		if own {
			x.ownSrc = src
		}
	default:
		stop()
	}
	return e, nil
}

// engineSettings encodes the settings of o.Engine that travel to the
// guest (everything but the model, the ids and the injected dependencies).
func (o *Options) engineSettings() ([]byte, error) {
	c := o.Engine
	c.Model, c.IDs, c.Sink, c.Clock, c.Stats, c.Codec = nil, core.SpecialIDs{}, nil, nil, nil, nil
	c.MaxBatch = o.MaxBatch
	return json.Marshal(c)
}
