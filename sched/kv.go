package sched

import (
	"encoding/json"
	"fmt"
)

// KVGeometry is the shape of one decoder's KV cache.
type KVGeometry struct {
	NumLayers  int `json:"num_layers"`
	NumKVHeads int `json:"num_kv_heads"`
	HeadDim    int `json:"head_dim"`
}

// Qwen3TTSTalker returns the talker's KV geometry, the same for the 0.6B and
// the 1.7B model: 28 layers × 8 KV heads × head_dim 128.
func Qwen3TTSTalker() KVGeometry { return KVGeometry{NumLayers: 28, NumKVHeads: 8, HeadDim: 128} }

// Validate checks that every dimension is positive.
func (g KVGeometry) Validate() error {
	if g.NumLayers < 1 || g.NumKVHeads < 1 || g.HeadDim < 1 {
		return fmt.Errorf("sched: KV geometry %d layers × %d kv heads × head_dim %d: every dimension must be ≥ 1",
			g.NumLayers, g.NumKVHeads, g.HeadDim)
	}
	return nil
}

// BytesPerToken is KVBytesPerToken for g.
func (g KVGeometry) BytesPerToken(dtype string) int64 {
	return KVBytesPerToken(g.NumLayers, g.NumKVHeads, g.HeadDim, dtype)
}

// KVBytesPerToken is 2 (K and V) × layers × kv heads × head_dim × the
// dtype's size (DTypeBytes): 114 688 for the Qwen3-TTS talker in bfloat16.
// Negative dimensions count as 0.
func KVBytesPerToken(numLayers, numKVHeads, headDim int, dtype string) int64 {
	return 2 * nonNeg(numLayers) * nonNeg(numKVHeads) * nonNeg(headDim) * int64(DTypeBytes(dtype))
}

// DTypeBytes is the size of one element: float32 4; float16, bfloat16 and
// auto 2; fp8 and float8_e4m3fn 1; any other name 2 (the original's table).
// "auto" means the model's dtype: resolve it before calling when the model
// is not 16-bit.
func DTypeBytes(dtype string) int {
	switch dtype {
	case "float32":
		return 4
	case "fp8", "float8_e4m3fn":
		return 1
	default: // float16, bfloat16, auto, unknown
		return 2
	}
}

// nonNeg is max(0, v) as int64.
func nonNeg(v int) int64 {
	if v < 0 {
		return 0
	}
	return int64(v)
}

// GeometryFromConfig reads the KV geometry from a Hugging Face config.json:
// its "talker_config" object when there is one (Qwen3-TTS), else the top
// level; kv heads are num_key_value_heads or else num_attention_heads;
// head_dim is head_dim or else hidden_size / num_attention_heads.
func GeometryFromConfig(configJSON []byte) (KVGeometry, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(configJSON, &top); err != nil {
		return KVGeometry{}, fmt.Errorf("sched: config: %w", err)
	}
	cfg := top
	if raw, ok := top["talker_config"]; ok {
		var sub map[string]json.RawMessage
		if json.Unmarshal(raw, &sub) == nil && sub != nil {
			cfg = sub
		}
	}
	get := func(key string) (int, bool, error) {
		raw, ok := cfg[key]
		if !ok || string(raw) == "null" {
			return 0, false, nil
		}
		var v int
		if err := json.Unmarshal(raw, &v); err != nil {
			return 0, true, fmt.Errorf("sched: config %s = %s is not an integer", key, raw)
		}
		return v, true, nil
	}
	var g KVGeometry
	var ok bool
	var err error
	if g.NumLayers, ok, err = get("num_hidden_layers"); err != nil {
		return KVGeometry{}, err
	} else if !ok {
		return KVGeometry{}, fmt.Errorf("sched: config has no num_hidden_layers")
	}
	heads, hasHeads, err := get("num_attention_heads")
	if err != nil {
		return KVGeometry{}, err
	}
	if g.NumKVHeads, ok, err = get("num_key_value_heads"); err != nil {
		return KVGeometry{}, err
	} else if !ok || g.NumKVHeads == 0 {
		if !hasHeads {
			return KVGeometry{}, fmt.Errorf("sched: config has neither num_key_value_heads nor num_attention_heads")
		}
		g.NumKVHeads = heads
	}
	if g.HeadDim, ok, err = get("head_dim"); err != nil {
		return KVGeometry{}, err
	} else if !ok || g.HeadDim == 0 {
		hidden, hasHidden, err := get("hidden_size")
		if err != nil {
			return KVGeometry{}, err
		}
		if !hasHidden || !hasHeads || heads <= 0 {
			return KVGeometry{}, fmt.Errorf("sched: config has no head_dim and no hidden_size / num_attention_heads")
		}
		g.HeadDim = hidden / heads
	}
	if err := g.Validate(); err != nil {
		return KVGeometry{}, err
	}
	return g, nil
}
