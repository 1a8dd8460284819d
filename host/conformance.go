package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// SuiteOptions configure Conformance.
type SuiteOptions struct {
	Dirs       []string  // suite directories or case files
	Kind       string    // only cases of this kind ("" = all)
	Precisions []string  // precisions the build offers for model kinds
	Threads    int       // kernel threads (0 = simd.DefaultThreads())
	CacheDir   string    // as Options.CacheDir
	Stderr     io.Writer // guest stderr
}

// Conformance replays conformance suites inside the WASI guest: the
// control-core kinds run in wasm, the model kinds on the guest backend
// (native kernels as host functions). The guest sees each suite directory
// read-only at its absolute path and nothing else. It returns the report
// as the JSON of a testvectors.Report.
func Conformance(ctx context.Context, o SuiteOptions) (json.RawMessage, error) {
	if len(o.Dirs) == 0 {
		return nil, fmt.Errorf("host: conformance without suite directories")
	}
	var dirs, mounts []string
	for _, d := range o.Dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("host: conformance %s: %w", d, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("host: conformance: %w", err)
		}
		dirs = append(dirs, abs)
		if fi.IsDir() {
			mounts = append(mounts, abs)
		} else {
			mounts = append(mounts, filepath.Dir(abs))
		}
	}
	threads := o.Threads
	if threads == 0 {
		threads = simd.DefaultThreads()
	}
	nb := simd.NewBackend(threads)
	defer nb.Close()
	s := newHostState(nb, nil, 16<<30)
	v, err := newVM(ctx, s, vmConfig{cacheDir: o.CacheDir, stderr: o.Stderr, mounts: mounts})
	if err != nil {
		return nil, err
	}
	defer v.close(context.Background())
	in, err := v.newInstance(ctx, s, 0)
	if err != nil {
		return nil, err
	}
	defer in.discard()
	rep, err := in.command(&abi.Command{Op: abi.CmdSuite, Suite: &abi.SuiteSpec{Dirs: dirs, Kind: o.Kind, Precisions: o.Precisions}})
	if err != nil {
		return nil, err
	}
	return rep.Report, nil
}
