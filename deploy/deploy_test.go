package deploy

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/omni-tts/omni/sched"
)

func TestCalibrationCache(t *testing.T) {
	dir := t.TempDir()
	hw := HardwareProfile{Arch: "x86_64", CPUModel: "test cpu", CPUFlags: []string{"avx2", "avx512"}, NLogical: 4, NPhysical: 4}
	fp := Fingerprint(hw, "Qwen3-TTS-0.6B")
	if len(fp) != 16 {
		t.Fatalf("fingerprint %q is not 16 hex digits", fp)
	}
	if fp == Fingerprint(hw, "Qwen3-TTS-1.7B") {
		t.Error("fingerprint does not depend on the model")
	}
	hw2 := hw
	hw2.CPUFlags = []string{"avx512", "avx2"}
	if Fingerprint(hw2, "Qwen3-TTS-0.6B") != fp {
		t.Error("fingerprint depends on flag order")
	}
	// One brand string, two generations (a VM's "AMD EPYC" on a Zen 4 and a
	// Zen 5): two calibrations.
	zen4, zen5 := hw, hw
	zen4.CPUSignature, zen5.CPUSignature = "family 25 model 17", "family 26 model 2"
	if Fingerprint(zen4, "Qwen3-TTS-0.6B") == Fingerprint(zen5, "Qwen3-TTS-0.6B") {
		t.Error("fingerprint does not depend on the CPU's family and model")
	}
	if _, found, err := LoadCalibration(dir, fp); found || err != nil {
		t.Fatalf("empty cache: found %v err %v", found, err)
	}
	cal := sched.Calibration{Measured: true, RTF: 1.2, MinFrames: 3, MarginMS: 90, Ramp: []int{3, 6, 12, 25}, Adaptive: true}
	if err := SaveCalibration(dir, fp, cal); err != nil {
		t.Fatal(err)
	}
	got, found, err := LoadCalibration(dir, fp)
	if err != nil || !found || !slices.Equal(got.Ramp, cal.Ramp) || got.MinFrames != 3 || got.MarginMS != 90 || !got.Adaptive {
		t.Errorf("round trip = %+v, %v, %v", got, found, err)
	}
}

func TestHWProfileOverride(t *testing.T) {
	t.Setenv(EnvHWProfile, "testdata/hw_override.json")
	h, err := ProbeHost()
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != "override:testdata/hw_override.json" || h.Arch != "x86_64" || h.CPUModel != "emulated avx2 box" || h.SupportsBF16 {
		t.Errorf("override: %+v", h)
	}
	t.Setenv(EnvHWProfile, `{"arch": "aarch64", "n_logical": 1, "accelerator": "npu:qualcomm"}`)
	if h, err := ProbeHost(); err != nil || h.Class() != NPUPhone || h.Source != "override:inline" {
		t.Errorf("inline override: %+v, %v", h, err)
	}
	t.Setenv(EnvHWProfile, `{"n_logical": 0}`)
	if _, err := ProbeHost(); err == nil {
		t.Error("override with 0 CPUs accepted")
	}
	t.Setenv(EnvHWProfile, "testdata/missing.json")
	if _, err := ProbeHost(); err == nil {
		t.Error("missing override file accepted")
	}
}

func TestProbeHostThisMachine(t *testing.T) {
	t.Setenv(EnvHWProfile, "")
	if runtime.GOOS != "linux" {
		t.Skip("the probe reads /proc and /sys")
	}
	h, err := ProbeHost()
	if err != nil {
		t.Fatal(err)
	}
	if h.NLogical != runtime.NumCPU() && h.NLogical < runtime.NumCPU() {
		t.Errorf("n_logical %d < runtime.NumCPU %d", h.NLogical, runtime.NumCPU())
	}
	if h.RAMTotalBytes <= 0 || h.NPhysical < 1 {
		t.Errorf("host: %+v", h)
	}
	t.Logf("host: %s, %d logical / %d physical, flags %v, L2 %d L3 %d, RAM %d / %d", h.CPUModel, h.NLogical, h.NPhysical, h.CPUFlags, h.L2Bytes, h.L3Bytes, h.RAMAvailableBytes, h.RAMTotalBytes)
}

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
	if p.Class != ARM64CPU || p.MaxNumSeqs != 1 || p.ModelThreads != 3 || p.CodecThreads != 1 {
		t.Errorf("auto on RK3588: class %s seqs %d threads %d/%d", p.Class, p.MaxNumSeqs, p.ModelThreads, p.CodecThreads)
	}
	if !p.ChunkAdaptive || !slices.Equal(p.ChunkRamp, []int{2, 4, 8, 16, 25}) || p.ChunkMinFrames != 3 || p.ChunkMarginMS != 160 {
		t.Errorf("chunking: adaptive %v ramp %v min %d margin %v", p.ChunkAdaptive, p.ChunkRamp, p.ChunkMinFrames, p.ChunkMarginMS)
	}
	if p.Memory.KVBytes <= 0 || p.BytesPerToken != 229376 || p.KVCacheBytes != sched.KVBytesForSeqs(1, 2048, 229376, 16) {
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
	cal := sched.Calibration{Measured: true, RTF: 1.4, MinFrames: 3, MarginMS: 90, Ramp: []int{3, 6, 12, 25}, Adaptive: true}
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
	if p.MaxNumSeqs != 4 || p.MaxModelLen != 4096 || p.ChunkAdaptive || !slices.Equal(p.ChunkRamp, sched.DefaultRamp()) || p.ChunkFrames != 25 || p.LeftContextFrames != 72 {
		t.Errorf("edge: %+v", p)
	}
	// The engine's float32 KV: 2 × 28 × 8 × 128 × 4 B per token, even on a
	// bf16 machine.
	if p.BytesPerToken != 229376 || p.KVCacheBytes != 4*4096*229376 {
		t.Errorf("edge KV: bpt %d cache %d, want 229376 and %d", p.BytesPerToken, p.KVCacheBytes, 4*4096*229376)
	}
	if p.ModelThreads != 5 || p.CodecThreads != 3 {
		t.Errorf("edge threads %d / %d, want 5 / 3 (round(8 × 2/3) to the model)", p.ModelThreads, p.CodecThreads)
	}
	// On a small host the edge profile's 4 sequences are cut to what fits.
	small, err := Resolve(ResolveOptions{Profile: "edge", Hardware: x86(4), CacheDir: "-", ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if small.MaxNumSeqs >= 4 || sched.MaxSeqsWithoutPreemption(small.Memory.KVBytes, 4096, 114688, 16) < small.MaxNumSeqs {
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
		"dtype.json":         `{"dtype": "bfloat16"}`, // the engine has no dtype to set
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

func TestDerivedBudgetsNeverAllowPreemption(t *testing.T) {
	// test_derived_budgets_never_allow_preemption: x86 8 GiB / 6 GiB
	// available with avx2 on 4 cores, Jetson 8 GiB unified bf16, a 48 GiB
	// discrete GPU (its pool given as RAM here); 2 GiB of weights.
	geom := sched.Qwen3TTSTalker()
	for _, hw := range []HardwareProfile{
		{Arch: "x86_64", CPUFlags: []string{"avx2"}, NLogical: 4, NPhysical: 4, RAMTotalBytes: 8 * GiB, RAMAvailableBytes: 6 * GiB, Accelerator: "none"},
		{Arch: "aarch64", NLogical: 6, NPhysical: 6, RAMTotalBytes: 8 * GiB, RAMAvailableBytes: 8 * GiB, Accelerator: "cuda_unified", SupportsBF16: true},
		{Arch: "x86_64", NLogical: 32, NPhysical: 16, RAMTotalBytes: 48 * GiB, RAMAvailableBytes: 48 * GiB, Accelerator: "cuda_discrete", SupportsBF16: true},
	} {
		p, err := Resolve(ResolveOptions{Profile: "auto", Hardware: &hw, WeightsBytes: 2 * GiB, CacheDir: "-", ProfileDir: t.TempDir()})
		if err != nil {
			t.Errorf("%s: %v", hw.Class(), err)
			continue
		}
		bpt := geom.BytesPerToken("float32")
		if p.MaxNumSeqs < 1 || sched.MaxSeqsWithoutPreemption(p.Memory.KVBytes, p.MaxModelLen, bpt, 16) < p.MaxNumSeqs {
			t.Errorf("%s: max_num_seqs %d at %d tokens does not fit KV %d", hw.Class(), p.MaxNumSeqs, p.MaxModelLen, p.Memory.KVBytes)
		}
	}
}

// TestResolveTwoCPUsOverlap: on two CPUs the model takes both and the codec
// one thread beside it (the measured best split, RATIONALE), not 1 / 1.
func TestResolveTwoCPUsOverlap(t *testing.T) {
	hw := &HardwareProfile{Arch: "x86_64", CPUModel: "test", CPUFlags: []string{"avx2"}, NLogical: 2, NPhysical: 2,
		RAMTotalBytes: 8 << 30, RAMAvailableBytes: 6 << 30}
	p, err := Resolve(ResolveOptions{Profile: "auto", Hardware: hw, CacheDir: t.TempDir(), ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if p.ModelThreads != 2 || p.CodecThreads != 1 {
		t.Errorf("auto on 2 CPUs: threads %d / %d, want 2 / 1", p.ModelThreads, p.CodecThreads)
	}
}
