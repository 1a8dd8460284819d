package main

import (
	"context"
	"io"
	"reflect"
	"testing"

	"github.com/omni-tts/omni/deploy"
	"github.com/omni-tts/omni/predictor"
)

// parseCLI parses args as run does, without running the command.
func parseCLI(t *testing.T, args ...string) *CLI {
	t.Helper()
	var cli CLI
	parser, err := newParser(&cli, context.Background(), io.Discard, io.Discard, func(c int) { t.Fatalf("%v: kong exit %d", args, c) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return &cli
}

// TestEngineConfigChunkAdaptive checks the plumbing from the deploy profile
// and --chunk-adaptive / --no-chunk-adaptive to core.Config.Adaptive that
// omni run and omni bench e2e (native and --wasm alike) build their
// engines with: the auto profile gives the profile's adaptive controller,
// edge the fixed ramp, and the flag overrides either.
func TestEngineConfigChunkAdaptive(t *testing.T) {
	hw := `{"arch": "x86_64", "cpu_model": "test", "cpu_flags": ["avx2", "avx512", "avx512_bf16"], "n_logical": 6, "n_physical": 6, "ram_total_bytes": 17179869184, "ram_available_bytes": 12884901888}`
	t.Setenv(deploy.EnvHWProfile, hw)
	t.Setenv(deploy.EnvCacheDir, t.TempDir())
	t.Setenv(deploy.EnvProfileDir, t.TempDir())
	cfg := &predictor.Config{Talker: predictor.DecoderConfig{Layers: 28, KVHeads: 8, HeadDim: 128}}
	for _, tc := range []struct {
		args     []string
		adaptive bool
	}{
		{[]string{"run"}, true},
		{[]string{"run", "--no-chunk-adaptive"}, false},
		{[]string{"run", "--deploy-profile", "edge"}, false},
		{[]string{"run", "--deploy-profile", "edge", "--chunk-adaptive"}, true},
		{[]string{"bench", "e2e"}, true},
		{[]string{"bench", "e2e", "--wasm", "--no-chunk-adaptive"}, false},
	} {
		cli := parseCLI(t, tc.args...)
		f := &cli.Run.engineFlags
		if tc.args[0] == "bench" {
			f = &cli.Bench.E2E.engineFlags
		}
		prof, err := f.resolveProfile(cfg, 1)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if prof.ChunkAdaptive != tc.adaptive {
			t.Errorf("%v: profile chunk_adaptive %v, want %v", tc.args, prof.ChunkAdaptive, tc.adaptive)
		}
		ec := f.engineConfig(prof)
		if !reflect.DeepEqual(ec.Chunks, prof.Ramp()) || ec.KVBudgetBytes != prof.Memory.KVBytes || ec.Throttle.MarginMS != prof.ChunkMarginMS || ec.Limits != f.limits() {
			t.Errorf("%v: engine config %+v does not carry the profile %+v", tc.args, ec, prof)
		}
		if !tc.adaptive {
			if ec.Adaptive != nil {
				t.Errorf("%v: adaptive %+v, want nil (the fixed ramp)", tc.args, *ec.Adaptive)
			}
			continue
		}
		if ec.Adaptive == nil {
			t.Errorf("%v: no adaptive config, want the profile's", tc.args)
			continue
		}
		a := *ec.Adaptive
		if a != prof.AdaptiveConfig() || a.MaxFrames != prof.ChunkFrames || a.MinFrames != prof.ChunkMinFrames || a.SafetyMarginMS != prof.ChunkMarginMS {
			t.Errorf("%v: adaptive %+v, want the profile's %+v", tc.args, a, prof.AdaptiveConfig())
		}
		if err := a.Validate(); err != nil {
			t.Errorf("%v: %v", tc.args, err)
		}
	}
}
