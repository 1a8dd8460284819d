package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
// (native kernels as host functions). The guest sees, read-only at their
// absolute paths and nothing else, each suite directory and every model
// directory a case names outside them (caseModels). It returns the report
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
	models, err := caseModels(dirs)
	if err != nil {
		return nil, err
	}
	for _, m := range models {
		if !under(m, mounts) {
			mounts = append(mounts, m)
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

// caseModels returns the model directories the cases under paths name
// ("model": a path relative to the case file, or absolute; synth: specs
// need no file), absolute and cleaned, each once. A directory that does not
// exist is left out: the case then fails naming it.
func caseModels(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	visit := func(file string) error {
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("host: conformance: %w", err)
		}
		var c struct {
			Model any `json:"model"`
		}
		if json.Unmarshal(b, &c) != nil {
			return nil // not a case (or malformed): the runner reports it
		}
		m, ok := c.Model.(string)
		if !ok || m == "" || strings.HasPrefix(m, "synth:") {
			return nil
		}
		if !filepath.IsAbs(m) {
			m = filepath.Join(filepath.Dir(file), m)
		}
		m = filepath.Clean(m)
		if st, err := os.Stat(m); err == nil && st.IsDir() && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
		return nil
	}
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || filepath.Ext(path) != ".json" {
				return nil
			}
			return visit(path)
		})
		if err != nil {
			return nil, fmt.Errorf("host: conformance: %w", err)
		}
	}
	return out, nil
}

// under reports whether path lies in one of dirs.
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
