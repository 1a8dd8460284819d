package deploy

import (
	"fmt"
	"slices"

	"github.com/omni-tts/omni/sched"
)

// Profile is a resolved deploy profile: every number the engine runs with,
// and in Derivation how each was reached. It holds nothing the engine does
// not apply: the KV figures are for the engine's float32 KV cache, and the
// thread split is a count (ModelThreads sizes the kernel pool; the codec
// stage takes CodecThreads), not a CPU pinning.
type Profile struct {
	Name              string            `json:"name"` // edge, auto, a user profile or a file
	Class             HardwareClass     `json:"hardware_class"`
	MaxNumSeqs        int               `json:"max_num_seqs"`
	MaxModelLen       int               `json:"max_model_len"`
	BytesPerToken     int64             `json:"kv_bytes_per_token"`
	KVCacheBytes      int64             `json:"kv_cache_bytes"` // the need of max_num_seqs × max_model_len, block-rounded
	Memory            MemoryBudget      `json:"memory"`
	MaxSeqsFit        int               `json:"max_seqs_without_preemption"` // what the KV budget admits
	ChunkRamp         []int             `json:"chunk_ramp"`
	ChunkFrames       int               `json:"chunk_frames"`
	LeftContextFrames int               `json:"left_context_frames"`
	ChunkAdaptive     bool              `json:"chunk_adaptive"`
	ChunkMinFrames    int               `json:"chunk_min_frames"`
	ChunkMarginMS     float64           `json:"chunk_safety_margin_ms"`
	ModelThreads      int               `json:"model_threads"` // talker + code predictor kernels (the kernel pool's size)
	CodecThreads      int               `json:"codec_threads"` // codec decoder while generation runs (all the model's threads while it waits)
	Fingerprint       string            `json:"fingerprint"`   // calibration cache key
	Hardware          HardwareProfile   `json:"hardware"`
	Derivation        map[string]string `json:"derivation"` // JSON field name → how it was derived
}

// Overrides are values that replace a profile's: the fields of a user
// profile file and the explicit flags. A nil (or empty) field keeps the
// profile's value.
type Overrides struct {
	MaxNumSeqs        *int     `json:"max_num_seqs,omitempty"`
	MaxModelLen       *int     `json:"max_model_len,omitempty"`
	ChunkRamp         []int    `json:"chunk_ramp,omitempty"`
	ChunkFrames       *int     `json:"chunk_frames,omitempty"`
	LeftContextFrames *int     `json:"left_context_frames,omitempty"`
	ChunkAdaptive     *bool    `json:"chunk_adaptive,omitempty"`
	ChunkMinFrames    *int     `json:"chunk_min_frames,omitempty"`
	ChunkMarginMS     *float64 `json:"chunk_safety_margin_ms,omitempty"`
	ModelThreads      *int     `json:"model_threads,omitempty"`
	CodecThreads      *int     `json:"codec_threads,omitempty"`
	HeadroomBytes     *int64   `json:"headroom_bytes,omitempty"`
	KVFraction        *float64 `json:"kv_fraction,omitempty"`
	WeightsBytes      *int64   `json:"weights_bytes,omitempty"`
}

// Built-in profile names.
const (
	ProfileAuto = "auto"
	ProfileEdge = "edge"
)

// profileFields is the order fields are printed in.
var profileFields = []string{
	"hardware_class", "max_model_len", "kv_bytes_per_token",
	"memory", "max_seqs_without_preemption", "max_num_seqs", "kv_cache_bytes",
	"chunk_ramp", "chunk_frames", "left_context_frames", "chunk_adaptive",
	"chunk_min_frames", "chunk_safety_margin_ms", "model_threads", "codec_threads",
}

// Fields lists the profile's JSON field names in a stable order, as the
// keys of Derivation.
func Fields() []string { return slices.Clone(profileFields) }

// MaxModelLenLimit bounds max_model_len: 2^24 tokens (some 15 days of
// audio at 12.5 frames a second, far beyond any model's positions), so one
// sequence's KV bytes cannot overflow an int64.
const MaxModelLenLimit = 1 << 24

// Validate checks the resolved profile.
func (p Profile) Validate() error {
	if p.MaxModelLen < 1 || p.MaxModelLen > MaxModelLenLimit {
		return fmt.Errorf("deploy: profile %s: max_model_len %d outside [1, %d]", p.Name, p.MaxModelLen, MaxModelLenLimit)
	}
	if p.MaxNumSeqs < 1 {
		return fmt.Errorf("deploy: profile %s: max_num_seqs %d, want ≥ 1", p.Name, p.MaxNumSeqs)
	}
	if p.ModelThreads < 1 || p.CodecThreads < 1 {
		return fmt.Errorf("deploy: profile %s: threads %d (model) / %d (codec), want ≥ 1 each", p.Name, p.ModelThreads, p.CodecThreads)
	}
	if p.ChunkMinFrames < 1 {
		return fmt.Errorf("deploy: profile %s: chunk_min_frames %d, want ≥ 1", p.Name, p.ChunkMinFrames)
	}
	if p.ChunkMarginMS < 0 {
		return fmt.Errorf("deploy: profile %s: chunk_safety_margin_ms %v, want ≥ 0", p.Name, p.ChunkMarginMS)
	}
	if err := p.Ramp().Validate(); err != nil {
		return fmt.Errorf("deploy: profile %s: %w", p.Name, err)
	}
	return nil
}

// Ramp is the profile's fixed chunk schedule.
func (p Profile) Ramp() sched.FixedRamp {
	return sched.FixedRamp{Ramp: slices.Clone(p.ChunkRamp), ChunkFrames: p.ChunkFrames, LeftContextFrames: p.LeftContextFrames}
}

// AdaptiveConfig is the profile's adaptive chunk controller configuration.
func (p Profile) AdaptiveConfig() sched.AdaptiveConfig {
	c := sched.DefaultAdaptiveConfig()
	c.MinFrames, c.MaxFrames, c.SafetyMarginMS = p.ChunkMinFrames, p.ChunkFrames, p.ChunkMarginMS
	return c
}
