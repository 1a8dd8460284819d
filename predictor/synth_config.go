package predictor

import (
	"fmt"
	"strings"

	"github.com/omni-tts/omni/speaker"
)

// synthSizes lists the synthetic model sizes NewSynth builds (never written).
var synthSizes = []string{"tiny", "tiny-wide", "0.6b", "1.7b", "tiny-base", "0.6b-base", "1.7b-base"}

// BaseSuffix ends the size of a synthetic Base model ("0.6b-base").
const BaseSuffix = "-base"

// SynthBaseSize returns the size of a synthetic model without its Base
// suffix ("0.6b-base" → "0.6b", true; "0.6b" → "0.6b", false): the size
// whose talker, codec and codec encoder geometry the model shares.
func SynthBaseSize(size string) (string, bool) {
	return strings.CutSuffix(size, BaseSuffix)
}

// SynthConfig returns the configuration of a synthetic model:
//
//   - "0.6b", "1.7b": the exact shipped geometry and ids of docs/MODEL.md
//     §1 (Qwen3-TTS-12Hz-0.6B / 1.7B CustomVoice, without a speaker
//     encoder), generation_config.json as in the released snapshots;
//   - "tiny": the same structure at toy width, for tests: talker 2 layers,
//     hidden 64, 4 query heads and 2 kv heads of 16, intermediate 128; code
//     predictor 2 layers of the same shape; the real vocabularies (talker
//     3072, 2048 per codebook, 16 codebooks, text 151936 with text hidden 64)
//     so every special, language, speaker and text token id stays valid;
//   - "tiny-wide": tiny with a 128-wide talker (8 query / 4 kv heads of 16,
//     intermediate 256), so the small_to_mtp_projection path of the 1.7B runs
//     at toy size;
//   - "tiny-base", "0.6b-base", "1.7b-base": the Base (voice-cloning)
//     variant of tiny, 0.6b, 1.7b: tts_model_type "base", no speaker table,
//     and a speaker encoder (SpeakerEncoder; its speaker_encoder.* tensors
//     in the model) of the real geometry with enc_dim the talker's hidden
//     size, or for tiny-base speaker.TinyConfig with enc_dim 64.
func SynthConfig(size string) (*Config, error) {
	base, isBase := SynthBaseSize(size)
	if isBase && (base == "tiny-wide" || strings.HasSuffix(base, BaseSuffix)) {
		return nil, fmt.Errorf("%w: synthetic size %q (have %v)", ErrSpec, size, synthSizes)
	}
	c := &Config{
		ModelType: "qwen3_tts", ModelKind: "custom_voice",
		TalkerVocab: 3072, PredictorVocab: 2048, CodeGroups: 16, TextVocab: 151936, TextHidden: 2048,
		CodecPad: 2148, CodecBos: 2149, CodecEos: 2150,
		CodecThink: 2154, CodecNothink: 2155, CodecThinkBos: 2156, CodecThinkEos: 2157,
		TTSPad: 151671, TTSBos: 151672, TTSEos: 151673, ImStart: 151644, ImEnd: 151645, Assistant: 77091,
		LanguageIDs: map[string]int{
			"english": 2050, "german": 2053, "spanish": 2054, "chinese": 2055, "japanese": 2058,
			"french": 2061, "sichuan_dialect": 2062, "korean": 2064, "russian": 2069,
			"italian": 2070, "portuguese": 2071, "beijing_dialect": 2074,
		},
		SpeakerIDs: map[string]int{
			"vivian": 3065, "serena": 3066, "uncle_fu": 3010, "dylan": 2878, "eric": 2875,
			"ryan": 3061, "aiden": 2861, "ono_anna": 2873, "sohee": 2864,
		},
		SpeakerDialects: map[string]string{"dylan": "beijing_dialect", "eric": "sichuan_dialect"},
		Generation:      DefaultGeneration(),
	}
	c.Generation.MaxNewTokens = 8192
	full := DecoderConfig{Layers: 28, Hidden: 1024, Intermediate: 3072, Heads: 16, KVHeads: 8, HeadDim: 128,
		RMSEps: 1e-6, RopeTheta: 1e6, MaxPositions: 32768}
	c.Predictor = full
	c.Predictor.Layers, c.Predictor.MaxPositions = 5, 65536
	switch base {
	case "0.6b":
		c.ModelSize = "0b6"
		c.Talker = full
	case "1.7b":
		c.ModelSize = "1b7"
		c.Talker = full
		c.Talker.Hidden, c.Talker.Intermediate = 2048, 6144
	case "tiny", "tiny-wide":
		c.ModelSize = base
		c.TextHidden = 64
		c.Talker = DecoderConfig{Layers: 2, Hidden: 64, Intermediate: 128, Heads: 4, KVHeads: 2, HeadDim: 16,
			RMSEps: 1e-6, RopeTheta: 1e6, MaxPositions: 32768}
		c.Predictor = c.Talker
		c.Predictor.MaxPositions = 65536
		if base == "tiny-wide" {
			c.Talker.Hidden, c.Talker.Intermediate, c.Talker.Heads, c.Talker.KVHeads = 128, 256, 8, 4
		}
	default:
		return nil, fmt.Errorf("%w: synthetic size %q (have %v)", ErrSpec, size, synthSizes)
	}
	if isBase {
		c.ModelKind = "base"
		c.SpeakerIDs, c.SpeakerDialects = map[string]int{}, map[string]string{}
		sc := speaker.DefaultConfig(c.Talker.Hidden)
		if base == "tiny" {
			sc = speaker.TinyConfig()
			sc.EncDim = c.Talker.Hidden
		}
		c.SpeakerEncoder = &sc
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("predictor: BUG: synthetic %s config: %w", size, err)
	}
	return c, nil
}
