package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/omni-tts/omni/sched"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// EnvProfileDir overrides where user profiles (<name>.json) are looked up.
const EnvProfileDir = "OMNI_PROFILE_DIR"

// ResolveOptions say what to resolve a profile for.
type ResolveOptions struct {
	Profile      string           // auto (default), edge, a user profile name, or a JSON file path
	Hardware     *HardwareProfile // nil: ProbeHost (OMNI_HW_PROFILE or the probe)
	Model        string           // model name or directory, part of the calibration key
	Geometry     sched.KVGeometry // zero: the Qwen3-TTS talker
	WeightsBytes int64            // checkpoint bytes; 0 = unknown
	CacheDir     string           // calibration cache root; "": DefaultCacheDir; "-": none
	ProfileDir   string           // user profiles; "": DefaultProfileDir; "-": none
	Flags        Overrides        // explicit flags: they win over every profile
}

// DefaultProfileDir is $OMNI_PROFILE_DIR, else <user config dir>/omni/profiles.
func DefaultProfileDir() string {
	if d := os.Getenv(EnvProfileDir); d != "" {
		return d
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "omni", "profiles")
}

// profileFile is a user profile: an optional base (auto or edge, default
// auto) and the values it overrides.
type profileFile struct {
	Base string `json:"base"`
	Overrides
}

// readProfileFile decodes a user profile: one JSON object, refusing
// unknown fields and anything after it.
func readProfileFile(path string) (profileFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return profileFile{}, fmt.Errorf("deploy: deploy profile: %w", err)
	}
	var f profileFile
	if !jsonObject(b) {
		return profileFile{}, fmt.Errorf("deploy: deploy profile %s: want a JSON object", path)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return profileFile{}, fmt.Errorf("deploy: deploy profile %s: %w", path, err)
	}
	end := d.InputOffset()
	if _, err := d.Token(); err != io.EOF {
		return profileFile{}, fmt.Errorf("deploy: deploy profile %s: data after the JSON object (from byte %d)", path, end)
	}
	if f.Base != "" && f.Base != ProfileAuto && f.Base != ProfileEdge {
		return profileFile{}, fmt.Errorf("deploy: deploy profile %s: base %q, want %q or %q", path, f.Base, ProfileAuto, ProfileEdge)
	}
	return f, nil
}

// locate turns a profile name into its built-in base and the user file on
// top of it (if any).
func locate(name, dir string) (base, file string, err error) {
	if name == "" {
		name = ProfileAuto
	}
	isPath := strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".json")
	if isPath {
		if _, err := os.Stat(name); err != nil {
			return "", "", fmt.Errorf("deploy: deploy profile file: %w", err)
		}
		return "", name, nil
	}
	user := ""
	if dir != "" {
		if p := filepath.Join(dir, name+".json"); fileExists(p) {
			user = p
		}
	}
	if name == ProfileAuto || name == ProfileEdge {
		return name, user, nil
	}
	if user != "" {
		return "", user, nil
	}
	avail := []string{ProfileAuto, ProfileEdge}
	if dir != "" {
		if m, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(m) > 0 {
			for _, p := range m {
				avail = append(avail, strings.TrimSuffix(filepath.Base(p), ".json"))
			}
		}
	}
	sort.Strings(avail[2:])
	return "", "", fmt.Errorf("deploy: deploy profile %q unknown (available: %s; user profiles live in %s)", name, strings.Join(avail, ", "), dir)
}

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// Resolve builds the profile: the hardware (probe or override) → the
// built-in base (edge: fixed values; auto: the class defaults) → derived
// values (dtype, memory budget, max_num_seqs by admission, thread split) →
// auto only: a cached calibration → the user file → the explicit flags.
// The result always admits max_num_seqs without preemption: when it cannot
// (not even one sequence fits, or an explicit max_num_seqs does not) it is
// an error with the numbers.
func Resolve(o ResolveOptions) (Profile, error) {
	dir := o.ProfileDir
	if dir == "" {
		dir = DefaultProfileDir()
	} else if dir == "-" {
		dir = ""
	}
	base, file, err := locate(o.Profile, dir)
	if err != nil {
		return Profile{}, err
	}
	var uf profileFile
	if file != "" {
		if uf, err = readProfileFile(file); err != nil {
			return Profile{}, err
		}
		if base == "" {
			base = uf.Base
			if base == "" {
				base = ProfileAuto
			}
		} else if uf.Base != "" && uf.Base != base {
			return Profile{}, fmt.Errorf("deploy: deploy profile %s overrides %s but names base %q", file, base, uf.Base)
		}
	}
	var hw HardwareProfile
	if o.Hardware != nil {
		hw = *o.Hardware
	} else if hw, err = ProbeHost(); err != nil {
		return Profile{}, err
	}
	if err := hw.Validate(); err != nil {
		return Profile{}, err
	}
	geom := o.Geometry
	if geom == (sched.KVGeometry{}) {
		geom = sched.Qwen3TTSTalker()
	}
	if err := geom.Validate(); err != nil {
		return Profile{}, err
	}
	class := hw.Class()
	cd, err := Defaults(class)
	if err != nil {
		return Profile{}, err
	}

	name := o.Profile
	if name == "" {
		name = ProfileAuto
	}
	p := Profile{Name: name, Class: class, Hardware: hw, Derivation: map[string]string{}}
	why := p.Derivation
	src := hw.Source
	if src == "" {
		src = "given"
	}
	why["hardware_class"] = fmt.Sprintf("%s (%s, accelerator %s; hardware from %s)", class, hw.Arch, hw.Accelerator, src)

	// Base values.
	explicitSeqs := false
	switch base {
	case ProfileEdge:
		p.MaxNumSeqs, p.MaxModelLen = 4, 4096
		p.ChunkRamp, p.ChunkFrames, p.LeftContextFrames = sched.DefaultRamp(), sched.DefaultChunkFrames, sched.DefaultLeftContextFrames
		p.ChunkAdaptive, p.ChunkMinFrames, p.ChunkMarginMS = false, 2, 50
		for _, k := range []string{"max_model_len", "chunk_ramp", "chunk_frames", "left_context_frames", "chunk_adaptive", "chunk_min_frames", "chunk_safety_margin_ms"} {
			why[k] = "edge profile"
		}
		why["max_num_seqs"] = "edge profile 4"
	default:
		p.MaxNumSeqs, p.MaxModelLen = cd.MaxNumSeqs, cd.MaxModelLen
		p.ChunkRamp, p.ChunkFrames, p.LeftContextFrames = sched.DefaultRamp(), sched.DefaultChunkFrames, sched.DefaultLeftContextFrames
		p.ChunkAdaptive, p.ChunkMinFrames, p.ChunkMarginMS = true, cd.ChunkMinFrames, cd.ChunkSafetyMarginMS
		why["max_model_len"] = fmt.Sprintf("class %s default", class)
		why["max_num_seqs"] = fmt.Sprintf("class %s default %d", class, cd.MaxNumSeqs)
		for _, k := range []string{"chunk_ramp", "chunk_frames", "left_context_frames"} {
			why[k] = "default schedule"
		}
		why["chunk_adaptive"] = "auto profile: adaptive chunking"
		why["chunk_min_frames"] = fmt.Sprintf("class %s default", class)
		why["chunk_safety_margin_ms"] = fmt.Sprintf("class %s default", class)
	}
	cpus := hw.BigCPUs()
	mc, cc := SplitCPUs(cpus, ModelShare)
	p.ModelThreads, p.CodecThreads = len(mc), len(cc)
	split := fmt.Sprintf("2/3 of the fastest cluster's %d CPUs (%s) to the model, the rest (%s) to the codec", len(cpus), FormatCPURanges(mc), FormatCPURanges(cc))
	if len(cpus) == 2 {
		// Two CPUs: overlap instead of partition. The generation (the
		// bound stage) takes both and the codec one more thread beside it,
		// which the OS interleaves with the generation's while the codec
		// waits for chunks (RATIONALE: "Why does the codec stage run beside
		// generation with model 2 + codec 1 threads on two cores?").
		p.ModelThreads, p.CodecThreads = 2, 1
		split = "2 CPUs: the model takes both, the codec 1 thread beside it and both while generation waits (measured: RTF with audio 1.69 at 2+1 against 2.16 at 1+1, 2.13 at 1+2 and 3.10 at 2+2, one stream)"
	}
	why["model_threads"], why["codec_threads"] = split, split

	headroom, kvFrac, weights := cd.HeadroomBytes, cd.KVFraction, o.WeightsBytes
	memWhy := fmt.Sprintf("class %s headroom, KV fraction %.2f", class, kvFrac)

	// Cached calibration (auto only).
	p.Fingerprint = Fingerprint(hw, o.Model)
	if base == ProfileAuto && o.CacheDir != "-" {
		cache := o.CacheDir
		if cache == "" {
			cache, _ = DefaultCacheDir()
		}
		if cache != "" {
			cal, found, err := LoadCalibration(cache, p.Fingerprint)
			if err != nil {
				return Profile{}, err
			}
			if found {
				at := "calibration " + CalibrationPath(cache, p.Fingerprint)
				if len(cal.Ramp) > 0 {
					p.ChunkRamp = cal.Ramp
					why["chunk_ramp"] = at
				}
				if cal.MinFrames > 0 {
					p.ChunkMinFrames = cal.MinFrames
					why["chunk_min_frames"] = at
				}
				if cal.MarginMS > 0 {
					p.ChunkMarginMS = cal.MarginMS
					why["chunk_safety_margin_ms"] = at
				}
				p.ChunkAdaptive = cal.Adaptive
				why["chunk_adaptive"] = fmt.Sprintf("%s (rtf %.2f)", at, cal.RTF)
			}
		}
	}

	// User file, then flags.
	for _, layer := range []struct {
		ov   Overrides
		what string
	}{{uf.Overrides, "user profile " + file}, {o.Flags, "flag"}} {
		ov := layer.ov
		set := func(k string) { why[k] = layer.what }
		if override(&p.MaxNumSeqs, ov.MaxNumSeqs, "max_num_seqs", set) {
			explicitSeqs = true
		}
		override(&p.MaxModelLen, ov.MaxModelLen, "max_model_len", set)
		if ov.ChunkRamp != nil {
			p.ChunkRamp = slices.Clone(ov.ChunkRamp)
			set("chunk_ramp")
		}
		override(&p.ChunkFrames, ov.ChunkFrames, "chunk_frames", set)
		override(&p.LeftContextFrames, ov.LeftContextFrames, "left_context_frames", set)
		override(&p.ChunkAdaptive, ov.ChunkAdaptive, "chunk_adaptive", set)
		override(&p.ChunkMinFrames, ov.ChunkMinFrames, "chunk_min_frames", set)
		override(&p.ChunkMarginMS, ov.ChunkMarginMS, "chunk_safety_margin_ms", set)
		override(&p.ModelThreads, ov.ModelThreads, "model_threads", set)
		override(&p.CodecThreads, ov.CodecThreads, "codec_threads", set)
		if ov.HeadroomBytes != nil {
			headroom = *ov.HeadroomBytes
			memWhy += "; headroom from " + layer.what
		}
		if ov.KVFraction != nil {
			kvFrac = *ov.KVFraction
			memWhy += "; KV fraction from " + layer.what
		}
		if ov.WeightsBytes != nil {
			weights = *ov.WeightsBytes
			memWhy += "; weights from " + layer.what
		}
	}
	if !(kvFrac > 0 && kvFrac <= 1) {
		return Profile{}, fmt.Errorf("deploy: profile %s: kv_fraction %v outside (0, 1]", p.Name, kvFrac)
	}
	if headroom < 0 || weights < 0 {
		return Profile{}, fmt.Errorf("deploy: profile %s: headroom %d / weights %d bytes is negative", p.Name, headroom, weights)
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}

	// Memory budget and admission, on the final numbers.
	pool, poolWhy := hw.RAMAvailableBytes, "available RAM"
	if pool == 0 {
		pool, poolWhy = hw.RAMTotalBytes, "total RAM (available unknown)"
	}
	p.Memory = NewMemoryBudget(pool, weights, headroom, kvFrac)
	wWhy := fmt.Sprintf("weights %.1f MiB", mib(weights))
	if weights == 0 {
		wWhy = "weights unknown (0)"
	}
	why["memory"] = fmt.Sprintf("pool = %s %.1f MiB; %s; activations max(15%% of weights, 512 MiB) = %.1f MiB; %s; budget %.1f MiB, KV %.1f MiB",
		poolWhy, mib(pool), wWhy, mib(p.Memory.ActivationsBytes), memWhy, mib(p.Memory.BudgetBytes), mib(p.Memory.KVBytes))
	// The engine's KV cache is float32 (predictor.NewKVCache), whatever the
	// weights' precision: the budget counts what it allocates.
	p.BytesPerToken = geom.BytesPerToken("float32")
	why["kv_bytes_per_token"] = fmt.Sprintf("2 × %d layers × %d kv heads × %d head_dim × 4 B (float32, the engine's KV cache)", geom.NumLayers, geom.NumKVHeads, geom.HeadDim)
	p.MaxSeqsFit = sched.MaxSeqsWithoutPreemption(p.Memory.KVBytes, p.MaxModelLen, p.BytesPerToken, sched.DefaultBlockSize)
	why["max_seqs_without_preemption"] = fmt.Sprintf("floor(KV %d B / (ceil(%d / 16) × 16 tokens × %d B/token))", p.Memory.KVBytes, p.MaxModelLen, p.BytesPerToken)
	if explicitSeqs {
		if err := CheckAdmission(p.Memory.KVBytes, p.MaxNumSeqs, p.MaxModelLen, p.BytesPerToken); err != nil {
			return Profile{}, fmt.Errorf("deploy profile %s: %w", p.Name, err)
		}
	} else {
		n, err := SizeMaxNumSeqs(p.MaxNumSeqs, p.Memory.KVBytes, p.MaxModelLen, p.BytesPerToken)
		if err != nil {
			return Profile{}, fmt.Errorf("deploy profile %s: %w", p.Name, err)
		}
		why["max_num_seqs"] = fmt.Sprintf("min(%s, %d admitted without preemption) = %d", why["max_num_seqs"], p.MaxSeqsFit, n)
		p.MaxNumSeqs = n
	}
	p.KVCacheBytes = sched.KVBytesForSeqs(p.MaxNumSeqs, p.MaxModelLen, p.BytesPerToken, sched.DefaultBlockSize)
	why["kv_cache_bytes"] = fmt.Sprintf("%d seqs × %d tokens (block-rounded) × %d B/token", p.MaxNumSeqs, p.MaxModelLen, p.BytesPerToken)
	return p, nil
}

// WeightsBytesIn sums the sizes of every *.safetensors file under dir
// (0 when there are none).
func WeightsBytesIn(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".safetensors") {
			info, err := os.Stat(path) // follows the HF cache's snapshot symlinks to their blobs
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("deploy: weights in %s: %w", dir, err)
	}
	return total, nil
}

// override applies one profile override: when v is set, *dst takes its
// value and set records who chose key. It reports whether v was set.
func override[T any](dst, v *T, key string, set func(key string)) bool {
	if v == nil {
		return false
	}
	*dst = *v
	set(key)
	return true
}
