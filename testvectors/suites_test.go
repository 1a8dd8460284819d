package testvectors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedSuites replays every committed suite: each case must pass,
// and at least min of each kind must have run, so a suite that lost its
// files fails too. The policy kinds need no backend; the model kinds run on
// the native one (nativeEnv). The generators are listed in gen/README.md.
func TestCommittedSuites(t *testing.T) {
	for _, s := range []struct {
		kind string
		min  int
		env  *Env
	}{
		{"rng.exponential", 10, nil},      // gen_rng.py (PyTorch's generator)
		{"sampler", 40, nil},              // gen_sampler.py (vLLM's sampler)
		{"stats", 7, nil},                 // gen_policy.py
		{"sched", 40, nil},                // gen_policy.py
		{"predictor", 6, nativeEnv()},     // gen_models.py (PyTorch)
		{"talker", 6, nativeEnv()},        // gen_models.py (PyTorch)
		{"frame", 5, nativeEnv()},         // gen_frame.py (PyTorch), one case per engine
		{"text", 300, nil},                // gen/text (HF tokenizers)
		{"prompt", 90, nil},               // gen/text (A.4 from the config)
		{"codec", 13, nativeEnv()},        // gen/codec (PyTorch; the bf16 case by hand)
		{"mel", 7, nil},                   // gen/clone (PyTorch)
		{"speaker", 10, nativeEnv()},      // gen/clone (PyTorch)
		{"codec_encode", 14, nativeEnv()}, // gen/clone_codec (PyTorch)
		{"clone_prompt", 9, nativeEnv()},  // gen/clone_prompt (PyTorch, upstream's layouts)
	} {
		t.Run(s.kind, func(t *testing.T) {
			replaySuite(t, []string{"suites"}, s.kind, s.min, s.env)
		})
	}
}

// replaySuite runs the cases of kind under roots and fails on every case
// that does not pass, and when fewer than min passed.
func replaySuite(t *testing.T, roots []string, kind string, min int, env *Env) {
	t.Helper()
	rep, err := Run(roots, Options{Kind: kind}, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Pass {
			t.Errorf("%s %s: %s", r.Status, r.Name, r.Message)
		}
	}
	if rep.Passed < min || rep.Failed != 0 {
		t.Errorf("%s: %s, want at least %d passes and no failure", kind, rep.Summary(), min)
	}
}

// TestAbsoluteModelPath: a case whose model field is an absolute path opens
// that directory, not one joined under the case's own directory.
func TestAbsoluteModelPath(t *testing.T) {
	model, err := filepath.Abs(filepath.Join("suites", "models", "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const name = "talker_tiny_fp32_t1_s8"
	body, err := os.ReadFile(filepath.Join("suites", "talker", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(body), `"../models/tiny"`, `"`+filepath.ToSlash(model)+`"`, 1)
	if moved == string(body) {
		t.Fatalf("%s.json does not name ../models/tiny", name)
	}
	tensors, err := os.ReadFile(filepath.Join("suites", "talker", name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, name+".json"), []byte(moved), 0o644)
	os.WriteFile(filepath.Join(dir, name+".safetensors"), tensors, 0o644)
	replaySuite(t, []string{dir}, "talker", 1, nativeEnv())
}
