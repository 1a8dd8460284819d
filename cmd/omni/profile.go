package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/deploy"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/sched"
)

// profileCmd is "omni profile": the resolved deploy profile and how each
// number was derived.
type profileCmd struct {
	DeployProfile string   `name:"deploy-profile" help:"auto, edge, a user profile name, or a JSON file." default:"auto" env:"OMNI_DEPLOY_PROFILE"`
	Model         string   `help:"Qwen3-TTS checkpoint directory (its config.json gives the KV geometry, its *.safetensors the weight bytes)."`
	JSON          bool     `help:"Print the profile as JSON."`
	MaxNumSeqs    *int     `name:"max-num-seqs" help:"Streams at once (must fit the KV budget without preemption)."`
	MaxModelLen   *int     `name:"max-model-len" help:"Tokens per stream."`
	ChunkRamp     string   `name:"chunk-ramp" help:"Chunk sizes in frames, e.g. 2,4,8,16,25."`
	Adaptive      *bool    `name:"chunk-adaptive" help:"Adaptive chunk sizing." negatable:""`
	CodecThreads  *int     `name:"codec-threads" help:"Threads for the codec stage."`
	KVFraction    *float64 `name:"kv-fraction" help:"Share of the memory budget for the talker's KV cache."`
	CalibrateFrom string   `name:"calibrate-from" help:"JSON [[t_ms, samples], ...] of one measured request (24 kHz): derive the chunk schedule and cache it for this machine and model." type:"existingfile"`
}

// Run implements "omni profile".
func (c *profileCmd) Run(g *Globals, _ context.Context) error {
	o := deploy.ResolveOptions{Profile: c.DeployProfile, Model: c.Model}
	if c.Model != "" {
		files, err := host.ResolveModel(c.Model)
		if err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		if files.Synth != nil {
			return fmt.Errorf("profile: --model %s: a synthetic model has no checkpoint files; give a checkpoint directory or a pulled ORG/NAME", c.Model)
		}
		dir := files.Weights
		cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
		if err != nil {
			return fmt.Errorf("profile: model: %w", err)
		}
		if o.Geometry, err = sched.GeometryFromConfig(cfg); err != nil {
			return fmt.Errorf("profile: model %s: %w", c.Model, err)
		}
		if o.WeightsBytes, err = deploy.WeightsBytesIn(dir); err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		o.Model = filepath.Base(filepath.Clean(c.Model))
	}
	f := &o.Flags
	f.MaxNumSeqs, f.MaxModelLen, f.ChunkAdaptive, f.CodecThreads, f.KVFraction =
		c.MaxNumSeqs, c.MaxModelLen, c.Adaptive, c.CodecThreads, c.KVFraction
	if c.ChunkRamp != "" {
		r, err := sched.ParseRamp(c.ChunkRamp)
		if err != nil {
			return err
		}
		f.ChunkRamp = r
	}
	if g.Threads > 0 {
		t := g.Threads
		f.ModelThreads = &t
	}
	if c.CalibrateFrom != "" {
		if err := c.calibrate(g, o.Model); err != nil {
			return err
		}
	}
	p, err := deploy.Resolve(o)
	if err != nil {
		return err
	}
	if p.Derivation["model_threads"] == "flag" {
		p.Derivation["model_threads"] = "flag --threads"
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", " ")
		return enc.Encode(p)
	}
	printProfile(g, p)
	return nil
}

// printProfile writes the profile as "field = value  (derivation)" lines.
func printProfile(g *Globals, p deploy.Profile) {
	h := p.Hardware
	fmt.Fprintf(g.Stdout, "deploy profile %s\n", p.Name)
	cpu := orUnknown(h.CPUModel)
	if h.CPUSignature != "" {
		cpu += " (" + h.CPUSignature + ")"
	}
	fmt.Fprintf(g.Stdout, "hardware: %s, %d logical / %d physical CPUs, flags %v, L2 %s, L3 %s, RAM %s available of %s (%s)\n",
		cpu, h.NLogical, h.NPhysical, h.CPUFlags, size(h.L2Bytes), size(h.L3Bytes), size(h.RAMAvailableBytes), size(h.RAMTotalBytes), h.Source)
	m := p.Memory
	values := map[string]string{
		"hardware_class":              string(p.Class),
		"max_model_len":               fmt.Sprint(p.MaxModelLen),
		"kv_bytes_per_token":          fmt.Sprint(p.BytesPerToken),
		"memory":                      fmt.Sprintf("budget %s, talker KV %s, codec %s", size(m.BudgetBytes), size(m.KVBytes), size(m.CodecBytes)),
		"max_seqs_without_preemption": fmt.Sprint(p.MaxSeqsFit),
		"max_num_seqs":                fmt.Sprint(p.MaxNumSeqs),
		"kv_cache_bytes":              fmt.Sprintf("%d (%s)", p.KVCacheBytes, size(p.KVCacheBytes)),
		"chunk_ramp":                  fmt.Sprint(p.ChunkRamp),
		"chunk_frames":                fmt.Sprint(p.ChunkFrames),
		"left_context_frames":         fmt.Sprint(p.LeftContextFrames),
		"chunk_adaptive":              fmt.Sprint(p.ChunkAdaptive),
		"chunk_min_frames":            fmt.Sprint(p.ChunkMinFrames),
		"chunk_safety_margin_ms":      fmt.Sprint(p.ChunkMarginMS),
		"model_threads":               fmt.Sprint(p.ModelThreads),
		"codec_threads":               fmt.Sprint(p.CodecThreads),
	}
	for _, k := range deploy.Fields() {
		fmt.Fprintf(g.Stdout, "%-28s %-34s %s\n", k, values[k], p.Derivation[k])
	}
	fmt.Fprintf(g.Stdout, "calibration key %s\n", p.Fingerprint)
}

// orUnknown is s or "unknown CPU".
func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

// size formats bytes in MiB or GiB.
func size(b int64) string {
	switch {
	case b >= deploy.GiB:
		return fmt.Sprintf("%.2f GiB", float64(b)/float64(deploy.GiB))
	case b >= deploy.MiB:
		return fmt.Sprintf("%.1f MiB", float64(b)/float64(deploy.MiB))
	}
	return fmt.Sprintf("%d B", b)
}

// calibrate derives a chunk schedule from a measured request and stores it
// in the calibration cache under this machine's and model's fingerprint.
func (c *profileCmd) calibrate(g *Globals, model string) error {
	b, err := os.ReadFile(c.CalibrateFrom)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	var raw [][2]float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("profile: calibration input %s: want [[t_ms, samples], ...]: %w", c.CalibrateFrom, err)
	}
	chunks := make([]sched.ChunkSamples, len(raw))
	for i, r := range raw {
		chunks[i] = sched.ChunkSamples{TMS: r[0], Samples: int(r[1])}
	}
	cal, err := sched.DeriveChunkSchedule(chunks, 24000, sched.DefaultCalibrateOptions())
	if err != nil {
		return err
	}
	if !cal.Measured {
		return fmt.Errorf("profile: %s: fewer than two audio chunks or no elapsed time: nothing to calibrate from", c.CalibrateFrom)
	}
	hw, err := deploy.ProbeHost()
	if err != nil {
		return err
	}
	cache, err := deploy.DefaultCacheDir()
	if err != nil {
		return err
	}
	fp := deploy.Fingerprint(hw, model)
	if err := deploy.SaveCalibration(cache, fp, cal); err != nil {
		return err
	}
	fmt.Fprintf(g.Stderr, "omni: calibration: %.1f frames/s (rtf %.2f) → min %d frames, margin %.0f ms, ramp %v, adaptive %v; saved %s\n",
		cal.FramesPerSecond, cal.RTF, cal.MinFrames, cal.MarginMS, cal.Ramp, cal.Adaptive, deploy.CalibrationPath(cache, fp))
	return nil
}
