package sched

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func rk3588(t *testing.T) *HardwareProfile {
	t.Helper()
	h, err := ProbeFS(os.DirFS("testdata/rk3588"), "arm64")
	if err != nil {
		t.Fatal(err)
	}
	return &h
}

func TestResolveAutoRK3588(t *testing.T) {
	p, err := Resolve(ResolveOptions{Profile: "auto", Hardware: rk3588(t), CacheDir: t.TempDir(), ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Class != ARM64CPU || p.MaxNumSeqs != 1 || p.DType != "float32" || p.ModelCPUs != "4-6" || p.CodecCPUs != "7" || p.ModelThreads != 3 || p.CodecThreads != 1 {
		t.Errorf("auto on RK3588: class %s seqs %d dtype %s cpus %s/%s threads %d/%d", p.Class, p.MaxNumSeqs, p.DType, p.ModelCPUs, p.CodecCPUs, p.ModelThreads, p.CodecThreads)
	}
	if !p.ChunkAdaptive || !slices.Equal(p.ChunkRamp, []int{2, 4, 8, 16, 25}) || p.ChunkMinFrames != 3 || p.ChunkMarginMS != 160 {
		t.Errorf("chunking: adaptive %v ramp %v min %d margin %v", p.ChunkAdaptive, p.ChunkRamp, p.ChunkMinFrames, p.ChunkMarginMS)
	}
	if p.Memory.KVBytes <= 0 || p.BytesPerToken != 229376 || p.KVCacheBytes != KVBytesForSeqs(1, 2048, 229376, 16) {
		t.Errorf("KV: budget %d bpt %d cache %d", p.Memory.KVBytes, p.BytesPerToken, p.KVCacheBytes)
	}
	for _, f := range Fields() {
		if p.Derivation[f] == "" {
			t.Errorf("no derivation for %s", f)
		}
	}
}

func TestResolveAutoAppliesCachedCalibration(t *testing.T) {
	hw := rk3588(t)
	cache := t.TempDir()
	cal := Calibration{Measured: true, RTF: 1.4, MinFrames: 3, MarginMS: 90, Ramp: []int{3, 6, 12, 25}, Adaptive: true}
	if err := SaveCalibration(cache, Fingerprint(*hw, "m"), cal); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(ResolveOptions{Hardware: hw, Model: "m", CacheDir: cache, ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.ChunkRamp, []int{3, 6, 12, 25}) || p.ChunkMinFrames != 3 || p.ChunkMarginMS != 90 || !p.ChunkAdaptive {
		t.Errorf("calibration not applied: ramp %v min %d margin %v", p.ChunkRamp, p.ChunkMinFrames, p.ChunkMarginMS)
	}
	if !strings.Contains(p.Derivation["chunk_ramp"], "calibration") {
		t.Errorf("derivation of chunk_ramp = %q", p.Derivation["chunk_ramp"])
	}
	// Another model has no calibration.
	q, _ := Resolve(ResolveOptions{Hardware: hw, Model: "other", CacheDir: cache, ProfileDir: t.TempDir()})
	if slices.Equal(q.ChunkRamp, cal.Ramp) {
		t.Error("calibration of model m applied to another model")
	}
}

func x86(availGiB int64) *HardwareProfile {
	return &HardwareProfile{Arch: "x86_64", CPUFlags: []string{"avx2", "avx512", "avx512_bf16"}, SupportsBF16: true,
		NLogical: 8, NPhysical: 8, RAMTotalBytes: 2 * availGiB * GiB, RAMAvailableBytes: availGiB * GiB, Accelerator: "none"}
}

func TestResolveEdge(t *testing.T) {
	p, err := Resolve(ResolveOptions{Profile: "edge", Hardware: x86(16), CacheDir: "-", ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxNumSeqs != 4 || p.MaxModelLen != 4096 || p.ChunkAdaptive || !slices.Equal(p.ChunkRamp, DefaultRamp()) || p.ChunkFrames != 25 || p.LeftContextFrames != 72 {
		t.Errorf("edge: %+v", p)
	}
	if p.DType != "bfloat16" || p.BytesPerToken != 114688 || p.KVCacheBytes != 4*4096*114688 {
		t.Errorf("edge KV: dtype %s bpt %d cache %d", p.DType, p.BytesPerToken, p.KVCacheBytes)
	}
	if p.ModelCPUs != "0-4" || p.CodecCPUs != "5-7" {
		t.Errorf("edge threads %s / %s, want 0-4 / 5-7", p.ModelCPUs, p.CodecCPUs)
	}
	// On a small host the edge profile's 4 sequences are cut to what fits.
	small, err := Resolve(ResolveOptions{Profile: "edge", Hardware: x86(4), CacheDir: "-", ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if small.MaxNumSeqs >= 4 || !AdmissionAllowsNoPreemption(small.Memory.KVBytes, small.MaxNumSeqs, 4096, 114688, 16) {
		t.Errorf("edge on 4 GiB: max_num_seqs %d with KV %d", small.MaxNumSeqs, small.Memory.KVBytes)
	}
}

func TestResolveRefusesWhatDoesNotFit(t *testing.T) {
	// A 3 GiB host: the original clamped max_num_seqs to 1 anyway; omni
	// refuses with the numbers.
	tiny := x86(3)
	_, err := Resolve(ResolveOptions{Hardware: tiny, WeightsBytes: 2 * GiB, CacheDir: "-", ProfileDir: t.TempDir()})
	if !errors.Is(err, ErrNoFit) || !strings.Contains(err.Error(), "not even one sequence") {
		t.Errorf("tiny host: %v, want a no-fit error", err)
	}
	n := 64
	_, err = Resolve(ResolveOptions{Hardware: x86(8), CacheDir: "-", ProfileDir: t.TempDir(), Flags: Overrides{MaxNumSeqs: &n}})
	var fe *FitError
	if !errors.As(err, &fe) || fe.Want != 64 || fe.Fit >= 64 {
		t.Errorf("--max-num-seqs 64 on 8 GiB: %v, want a FitError", err)
	}
}

func TestResolveUserFilesAndFlags(t *testing.T) {
	dir := t.TempDir()
	// A user file named like a built-in overrides it.
	if err := os.WriteFile(filepath.Join(dir, "edge.json"), []byte(`{"max_model_len": 2048, "chunk_ramp": [4, 8, 25]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(ResolveOptions{Profile: "edge", Hardware: x86(16), CacheDir: "-", ProfileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxModelLen != 2048 || !slices.Equal(p.ChunkRamp, []int{4, 8, 25}) || p.MaxNumSeqs != 4 {
		t.Errorf("edge + user file: len %d ramp %v seqs %d", p.MaxModelLen, p.ChunkRamp, p.MaxNumSeqs)
	}
	// A named user profile with a base, and flags winning over it.
	if err := os.WriteFile(filepath.Join(dir, "box.json"), []byte(`{"base": "edge", "max_num_seqs": 2, "model_threads": 6}`), 0o644); err != nil {
		t.Fatal(err)
	}
	three := 3
	p, err = Resolve(ResolveOptions{Profile: "box", Hardware: x86(16), CacheDir: "-", ProfileDir: dir, Flags: Overrides{MaxNumSeqs: &three}})
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxNumSeqs != 3 || p.ModelThreads != 6 || p.Derivation["max_num_seqs"] != "flag" || !strings.Contains(p.Derivation["model_threads"], "box.json") {
		t.Errorf("box + flag: seqs %d threads %d derivation %q / %q", p.MaxNumSeqs, p.ModelThreads, p.Derivation["max_num_seqs"], p.Derivation["model_threads"])
	}
	// A file given by path.
	path := filepath.Join(t.TempDir(), "mine.json")
	os.WriteFile(path, []byte(`{"chunk_adaptive": false}`), 0o644)
	if p, err := Resolve(ResolveOptions{Profile: path, Hardware: x86(16), CacheDir: "-", ProfileDir: dir}); err != nil || p.ChunkAdaptive || p.MaxNumSeqs != 2 {
		t.Errorf("file profile (base auto): adaptive %v seqs %d, %v", p.ChunkAdaptive, p.MaxNumSeqs, err)
	}
	for name, body := range map[string]string{
		"unknown_field.json": `{"max_num_sequences": 2}`,
		"bad_base.json":      `{"base": "turbo"}`,
		"bad_ramp.json":      `{"chunk_ramp": [5]}`,
		"bad_dtype.json":     `{"dtype": "int4"}`,
	} {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Resolve(ResolveOptions{Profile: p, Hardware: x86(16), CacheDir: "-", ProfileDir: dir}); err == nil {
			t.Errorf("profile %s accepted", body)
		}
	}
	if _, err := Resolve(ResolveOptions{Profile: "nope", Hardware: x86(16), CacheDir: "-", ProfileDir: dir}); err == nil || !strings.Contains(err.Error(), "box") {
		t.Errorf("unknown profile: %v, want an error listing box", err)
	}
}

func TestPortableImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".", "../stats").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/simd", "/host", "wazero", "kong"} {
			if strings.Contains(dep, banned) {
				t.Errorf("sched/stats depend on %s", dep)
			}
		}
	}
}
