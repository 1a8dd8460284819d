package host

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/omni-tts/omni/wasm/abi"
)

// DefaultMemoryPages is the default guest memory cap: 16384 pages of 64 KiB
// (1 GiB), reserved up front so views of guest memory never go stale.
const DefaultMemoryPages = 16384

// vmConfig configures a vm.
type vmConfig struct {
	module   []byte    // the guest (nil: the embedded one)
	pages    uint32    // memory cap in pages
	cacheDir string    // compilation cache; "" = <user cache dir>/omni/wazero, "-" = memory only
	stderr   io.Writer // guest stderr (panic messages); nil = discarded
	fsys     fs.FS     // read-only root for the guest; nil = no filesystem
	mounts   []string  // absolute host directories mounted read-only at the same guest path
	// interruptible compiles the guest with context checks, so a call
	// timeout can stop a runaway loop (measured ~3× slower guest code).
	interruptible bool
}

// vm is one wazero runtime with the host functions of one engine and the
// guest compiled once; instances are made from it and replaced after a
// trap.
type vm struct {
	cfg      vmConfig
	rt       wazero.Runtime
	cache    wazero.CompilationCache
	compiled wazero.CompiledModule
}

// cacheFor opens the compilation cache dir asks for.
func cacheFor(dir string) wazero.CompilationCache {
	if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "omni", "wazero")
		} else {
			dir = "-"
		}
	}
	if dir != "-" {
		if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			return c
		}
	}
	return wazero.NewCompilationCache()
}

// newVM builds the runtime, registers the host functions on s, and
// compiles the guest, checking that its imports are the ones the host
// exports.
func newVM(ctx context.Context, s *hostState, cfg vmConfig) (*vm, error) {
	if cfg.module == nil {
		cfg.module = guestWasm
	}
	if cfg.pages == 0 {
		cfg.pages = DefaultMemoryPages
	}
	if cfg.pages > 65536 {
		return nil, fmt.Errorf("host: memory cap %d pages above the wasm32 limit 65536", cfg.pages)
	}
	v := &vm{cfg: cfg, cache: cacheFor(cfg.cacheDir)}
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(v.cache).
		WithMemoryLimitPages(cfg.pages).
		WithMemoryCapacityFromMax(true).
		WithCloseOnContextDone(cfg.interruptible)
	v.rt = wazero.NewRuntimeWithConfig(ctx, rc)
	fail := func(err error) (*vm, error) {
		v.close(ctx)
		return nil, err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, v.rt); err != nil {
		return fail(fmt.Errorf("host: wasi: %w", err))
	}
	hb := v.rt.NewHostModuleBuilder(abi.Module)
	if err := registerFuncs(hb, s); err != nil {
		return fail(err)
	}
	if _, err := hb.Instantiate(ctx); err != nil {
		return fail(fmt.Errorf("host: host module %s: %w", abi.Module, err))
	}
	c, err := v.rt.CompileModule(ctx, cfg.module)
	if err != nil {
		return fail(fmt.Errorf("host: compile guest: %w", err))
	}
	v.compiled = c
	if err := checkImports(c); err != nil {
		return fail(err)
	}
	return v, nil
}

// checkImports refuses a guest importing a function of module omni that
// the host lacks or declares with another signature.
func checkImports(c wazero.CompiledModule) error {
	ops := map[string]abi.Op{}
	for _, op := range abi.Ops() {
		ops[op.Name] = op
	}
	for _, f := range c.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != abi.Module {
			continue
		}
		op, ok := ops[name]
		if !ok {
			return fmt.Errorf("host: guest imports %s.%s, which the host does not export", mod, name)
		}
		pt, rt := f.ParamTypes(), f.ResultTypes()
		if len(pt) != len(op.Types) || len(rt) != 1 || rt[0] != api.ValueTypeI32 {
			return fmt.Errorf("host: guest imports %s.%s with %d params and %d results, host has %d and 1", mod, name, len(pt), len(rt), len(op.Types))
		}
		for i, t := range op.Types {
			if pt[i] != valueType(t) {
				return fmt.Errorf("host: guest imports %s.%s param %d (%s) as %s, host has %s", mod, name, i, op.Params[i], api.ValueTypeName(pt[i]), api.ValueTypeName(valueType(t)))
			}
		}
	}
	return nil
}

// close releases the runtime (every instance) and the cache handle.
func (v *vm) close(ctx context.Context) error {
	var err error
	if v.rt != nil {
		err = v.rt.Close(ctx)
	}
	if v.cache != nil {
		v.cache.Close(ctx)
	}
	return err
}

// moduleConfig is how every instance starts: the reactor initialiser, real
// clocks, stderr, and no filesystem unless one was given.
func (v *vm) moduleConfig() wazero.ModuleConfig {
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(abi.ExportInit).
		WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	if v.cfg.stderr != nil {
		mc = mc.WithStderr(v.cfg.stderr)
	}
	if v.cfg.fsys != nil || len(v.cfg.mounts) > 0 {
		fc := wazero.NewFSConfig()
		if v.cfg.fsys != nil {
			fc = fc.WithFSMount(v.cfg.fsys, "/")
		}
		for _, d := range v.cfg.mounts {
			fc = fc.WithReadOnlyDirMount(d, d)
		}
		mc = mc.WithFSConfig(fc)
	}
	return mc
}
