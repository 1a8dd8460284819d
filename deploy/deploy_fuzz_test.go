package deploy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/omni-tts/omni/sched"
)

// checkResolved checks what every resolved profile promises: it validates,
// its max_num_seqs fit the KV budget without preemption (recomputed here
// with sched's formulas), the budget shares out the pool without going
// negative or past it, and every field says how it was derived.
func checkResolved(t *testing.T, p Profile) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("resolved profile does not validate: %v", err)
	}
	m := p.Memory
	if m.PoolBytes < 0 || m.WeightsBytes < 0 || m.HeadroomBytes < 0 || m.ActivationsBytes < ActivationsFloorBytes ||
		m.BudgetBytes < 0 || m.KVBytes < 0 || m.CodecBytes < 0 || m.KVBytes+m.CodecBytes != m.BudgetBytes ||
		m.BudgetBytes > m.PoolBytes {
		t.Fatalf("memory budget %+v does not share out its pool", m)
	}
	if m.BudgetBytes > 0 { // weights + activations + headroom + budget = pool, without overflow
		sum := int64(0)
		for _, x := range []int64{m.WeightsBytes, m.ActivationsBytes, m.HeadroomBytes, m.BudgetBytes} {
			if x > m.PoolBytes-sum {
				t.Fatalf("memory budget %+v: its parts exceed the pool", m)
			}
			sum += x
		}
		if sum != m.PoolBytes {
			t.Fatalf("memory budget %+v: its parts sum to %d, not the pool", m, sum)
		}
	}
	per := sched.KVBytesForSeqs(1, p.MaxModelLen, p.BytesPerToken, sched.DefaultBlockSize)
	if per <= 0 || per/p.BytesPerToken < int64(p.MaxModelLen) {
		t.Fatalf("one sequence of %d tokens × %d B/token needs %d bytes: overflow", p.MaxModelLen, p.BytesPerToken, per)
	}
	if fit := m.KVBytes / per; int64(p.MaxNumSeqs) > fit || p.MaxSeqsFit != int(fit) {
		t.Fatalf("max_num_seqs %d (fit %d) at %d bytes each, KV budget %d holds %d", p.MaxNumSeqs, p.MaxSeqsFit, per, m.KVBytes, fit)
	}
	if p.KVCacheBytes != int64(p.MaxNumSeqs)*per || p.KVCacheBytes > m.KVBytes {
		t.Fatalf("kv_cache_bytes %d for %d × %d bytes, KV budget %d", p.KVCacheBytes, p.MaxNumSeqs, per, m.KVBytes)
	}
	for _, f := range Fields() {
		if p.Derivation[f] == "" {
			t.Fatalf("no derivation for %s", f)
		}
	}
}

// fuzzHardware is an 8-CPU x86 host with 16 GiB available.
func fuzzHardware() *HardwareProfile {
	return &HardwareProfile{Arch: "x86_64", CPUFlags: []string{"avx2", "avx512"}, NLogical: 8, NPhysical: 8,
		RAMTotalBytes: 32 * GiB, RAMAvailableBytes: 16 * GiB, Accelerator: "none"}
}

// FuzzResolveProfile checks user deploy profile files (JSON the user
// writes): a file is refused with an error that names it, or it is one JSON
// object whose every value shows in the resolved profile, which keeps every
// promise of checkResolved.
func FuzzResolveProfile(f *testing.F) {
	for _, s := range []string{
		`{"max_model_len": 2048, "chunk_ramp": [4, 8, 25]}`, `{"base": "edge", "max_num_seqs": 2, "model_threads": 6}`,
		`{"chunk_adaptive": false}`, `{"max_num_sequences": 2}`, `{"base": "turbo"}`, `{"chunk_ramp": [5]}`, `{"dtype": "bfloat16"}`,
		`{"kv_fraction": 0.5, "headroom_bytes": 1073741824, "weights_bytes": 2147483648, "chunk_safety_margin_ms": 80}`,
		`{"max_num_seqs": 64}`, `{"kv_fraction": 0}`, `{"codec_threads": 0}`, `{}`, `null`, `[]`, ``,
		`{"chunk_frames": 25, "left_context_frames": 72, "chunk_min_frames": 2}`,
		`{"weights_bytes": 9223372036854775807, "headroom_bytes": 9223372036854775807}`,
		`{"weights_bytes": 4000000000000000000, "headroom_bytes": 5000000000000000000}`,
		`{"max_model_len": 9223372036854775807}`, `{"max_model_len": 40210710958430}`,
		`{} {"max_num_seqs": 0}`, `{"max_num_seqs": 1}x`,
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "fuzz.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Resolve(ResolveOptions{Profile: path, Hardware: fuzzHardware(), CacheDir: "-", ProfileDir: "-"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "deploy") || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the profile file %s", err, path)
			}
			return
		}
		if b := bytes.TrimSpace(body); !json.Valid(b) || b[0] != '{' {
			t.Fatalf("profile %q accepted: not one JSON object", body)
		}
		checkResolved(t, p)
		var uf profileFile
		if err := json.Unmarshal(body, &uf); err != nil {
			t.Fatalf("profile %q accepted, but encoding/json refuses it: %v", body, err)
		}
		o := uf.Overrides
		for _, c := range []struct {
			key       string
			set, same bool
		}{
			{"max_num_seqs", o.MaxNumSeqs != nil, o.MaxNumSeqs != nil && *o.MaxNumSeqs == p.MaxNumSeqs},
			{"max_model_len", o.MaxModelLen != nil, o.MaxModelLen != nil && *o.MaxModelLen == p.MaxModelLen},
			{"chunk_ramp", o.ChunkRamp != nil, slices.Equal(o.ChunkRamp, p.ChunkRamp)},
			{"chunk_frames", o.ChunkFrames != nil, o.ChunkFrames != nil && *o.ChunkFrames == p.ChunkFrames},
			{"left_context_frames", o.LeftContextFrames != nil, o.LeftContextFrames != nil && *o.LeftContextFrames == p.LeftContextFrames},
			{"chunk_adaptive", o.ChunkAdaptive != nil, o.ChunkAdaptive != nil && *o.ChunkAdaptive == p.ChunkAdaptive},
			{"chunk_min_frames", o.ChunkMinFrames != nil, o.ChunkMinFrames != nil && *o.ChunkMinFrames == p.ChunkMinFrames},
			{"chunk_safety_margin_ms", o.ChunkMarginMS != nil, o.ChunkMarginMS != nil && *o.ChunkMarginMS == p.ChunkMarginMS},
			{"model_threads", o.ModelThreads != nil, o.ModelThreads != nil && *o.ModelThreads == p.ModelThreads},
			{"codec_threads", o.CodecThreads != nil, o.CodecThreads != nil && *o.CodecThreads == p.CodecThreads},
			{"headroom_bytes", o.HeadroomBytes != nil, o.HeadroomBytes != nil && *o.HeadroomBytes == p.Memory.HeadroomBytes},
			{"kv_fraction", o.KVFraction != nil, o.KVFraction != nil && *o.KVFraction == p.Memory.KVFraction},
			{"weights_bytes", o.WeightsBytes != nil, o.WeightsBytes != nil && *o.WeightsBytes == p.Memory.WeightsBytes},
		} {
			if c.set && !c.same {
				t.Fatalf("profile %q sets %s, the resolved profile %+v does not hold it", body, c.key, p)
			}
		}
	})
}

// FuzzLoadHardwareProfile checks OMNI_HW_PROFILE's inline JSON (user
// input): it is refused with an error naming the profile, or it validates
// and resolves (edge and auto) to a profile that keeps every promise of
// checkResolved, or is refused there with a deploy error; never a panic.
func FuzzLoadHardwareProfile(f *testing.F) {
	for _, s := range []string{
		`{"arch": "amd64", "cpu_model": "emulated avx2 box", "cpu_flags": ["fma", "avx2"], "n_logical": 4, "n_physical": 4, "ram_total_bytes": 8589934592, "ram_available_bytes": 6442450944}`,
		`{"arch": "aarch64", "n_logical": 1, "accelerator": "npu:qualcomm"}`,
		`{"arch": "aarch64", "n_logical": 8, "n_physical": 8, "clusters": [[4, 5, 6, 7], [0, 1, 2, 3]], "ram_total_bytes": 17179869184, "ram_available_bytes": 12884901888}`,
		`{"n_logical": 2, "ram_available_bytes": 8589934592, "accelerator": "cuda_discrete", "gpu_mem_bytes": 25769803776}`,
		`{"n_logical": 0}`, `{"n_logical": 4, "ram_total_bytes": -1}`, `{"n_logical": 4}`, `{}`, `{"n_logical": "4"}`,
		`{"n_logical": 9223372036854775807, "ram_available_bytes": 8589934592}`,
		`{"n_logical": 2, "clusters": [[0, 0, 0, 0, 0, 0, 0, 0]], "ram_available_bytes": 8589934592}`,
		`{"n_logical": 2, "clusters": [[-5, 1]], "ram_available_bytes": 8589934592}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if !strings.HasPrefix(strings.TrimSpace(spec), "{") {
			return // a path: the fuzzer reads no files
		}
		h, err := LoadHardwareProfile(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "deploy: ") || !strings.Contains(err.Error(), "override:inline") {
				t.Fatalf("error %q does not name the hardware profile", err)
			}
			return
		}
		if err := h.Validate(); err != nil || h.Source != "override:inline" || h.Arch == "" {
			t.Fatalf("accepted profile %+v: %v", h, err)
		}
		for _, name := range []string{ProfileEdge, ProfileAuto} {
			p, err := Resolve(ResolveOptions{Profile: name, Hardware: &h, CacheDir: "-", ProfileDir: "-"})
			if err != nil {
				if !strings.HasPrefix(err.Error(), "deploy") {
					t.Fatalf("%s on %+v: error %q", name, h, err)
				}
				continue
			}
			checkResolved(t, p)
			if p.ModelThreads > h.NLogical+1 || p.CodecThreads > h.NLogical {
				t.Fatalf("%s on %d logical CPUs: %d model and %d codec threads", name, h.NLogical, p.ModelThreads, p.CodecThreads)
			}
		}
	})
}

// FuzzLoadCalibration checks calibration cache files (written by omni, but
// read back from disk): a file is refused with an error naming it, or
// holds a valid schedule that Resolve (auto) applies as stored.
func FuzzLoadCalibration(f *testing.F) {
	for _, s := range []string{
		`{"measured": true, "rtf": 1.2, "min_frames": 3, "margin_ms": 90, "ramp": [3, 6, 12, 25], "adaptive": true}`,
		`{"measured": false, "min_frames": 2, "margin_ms": 50, "ramp": [2, 4, 8, 16, 25], "adaptive": true}`,
		`{"ramp": [5]}`, `{"ramp": [0, 25]}`, `{"min_frames": -3, "margin_ms": -1}`, `{}`, `null`, `[`, `{"ramp": [3, 6]} x`,
	} {
		f.Add([]byte(s))
	}
	cache := f.TempDir()
	hw := fuzzHardware()
	fp := Fingerprint(*hw, "m")
	path := CalibrationPath(cache, fp)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		c, found, err := LoadCalibration(cache, fp)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "deploy: calibration "+path) {
				t.Fatalf("error %q does not name the calibration file", err)
			}
			return
		}
		if !found {
			t.Fatal("an existing calibration file not found")
		}
		if b := bytes.TrimSpace(body); !json.Valid(b) || b[0] != '{' {
			t.Fatalf("calibration %q accepted: not one JSON object", body)
		}
		if c.MinFrames < 0 || c.MarginMS < 0 {
			t.Fatalf("calibration %q accepted: min_frames %d, margin_ms %v", body, c.MinFrames, c.MarginMS)
		}
		if len(c.Ramp) > 0 {
			if err := (sched.FixedRamp{Ramp: c.Ramp, ChunkFrames: c.Ramp[len(c.Ramp)-1]}).Validate(); err != nil {
				t.Fatalf("calibration %q accepted with ramp %v: %v", body, c.Ramp, err)
			}
		}
		p, err := Resolve(ResolveOptions{Hardware: hw, Model: "m", CacheDir: cache, ProfileDir: "-"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "deploy") {
				t.Fatalf("resolve with calibration %q: error %q", body, err)
			}
			return
		}
		checkResolved(t, p)
		if (len(c.Ramp) > 0 && !slices.Equal(p.ChunkRamp, c.Ramp)) || (c.MinFrames > 0 && p.ChunkMinFrames != c.MinFrames) ||
			(c.MarginMS > 0 && p.ChunkMarginMS != c.MarginMS) || p.ChunkAdaptive != c.Adaptive {
			t.Fatalf("calibration %+v not applied as stored: %+v", c, p)
		}
	})
}
