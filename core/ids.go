package core

import "fmt"

// SpecialIDs are the Qwen3-TTS ids prompt construction and generation use:
// text-vocabulary ids for the role rows and the tts_* rows, codec ids for
// the control rows, the language table and the speaker table. Fill it from
// a model config (IDsFromConfig) or use Qwen3TTSIDs.
type SpecialIDs struct {
	ImStart, Assistant, Newline int32 // role rows: <|im_start|>, assistant, "\n"
	TTSPad, TTSBos, TTSEos      int32 // text-track specials

	CodecPad, CodecBos, CodecEos        int32 // codec-track specials (EOS ends a stream)
	CodecThink, CodecNoThink            int32
	CodecThinkBos, CodecThinkEos        int32
	TextVocab, CodecVocab, CodebookSize int               // text vocabulary, talker vocabulary (3072), residual codebook size (2048)
	Languages                           map[string]int32  // language name → codec id
	Speakers                            map[string]int32  // speaker name → codec row
	SpeakerDialect                      map[string]string // speaker name → dialect language that replaces chinese/auto

	// ModelKind is the config's tts_model_type (custom_voice, voice_design,
	// base; "" when unknown): it picks the default layout (DefaultLayout).
	ModelKind string
	// TakesInstruct reports that the model takes an instruction (1.7B
	// CustomVoice, VoiceDesign); requests with InstructIDs are refused
	// otherwise.
	TakesInstruct bool
	// Context is the talker's max_position_embeddings; a prompt built from
	// text must leave room in it (0 = unchecked).
	Context int
	// Hidden is the talker's hidden size, the length a clone's x-vector
	// must have (0 = unchecked; the engine fills it from its model).
	Hidden int
}

// Qwen3TTSIDs returns the ids of the released Qwen3-TTS 12 Hz checkpoints
// (docs/MODEL.md §1): text specials 151644/77091/198 and
// 151671..151673, codec specials 2148..2157, the twelve language ids and
// the nine CustomVoice speakers.
func Qwen3TTSIDs() SpecialIDs {
	return SpecialIDs{
		ImStart: 151644, Assistant: 77091, Newline: 198,
		TTSPad: 151671, TTSBos: 151672, TTSEos: 151673,
		CodecPad: 2148, CodecBos: 2149, CodecEos: 2150,
		CodecThink: 2154, CodecNoThink: 2155, CodecThinkBos: 2156, CodecThinkEos: 2157,
		TextVocab: 151936, CodecVocab: 3072, CodebookSize: 2048,
		Languages: map[string]int32{
			"english": 2050, "german": 2053, "spanish": 2054, "chinese": 2055,
			"japanese": 2058, "french": 2061, "sichuan_dialect": 2062, "korean": 2064,
			"russian": 2069, "italian": 2070, "portuguese": 2071, "beijing_dialect": 2074,
		},
		Speakers: map[string]int32{
			"vivian": 3065, "serena": 3066, "uncle_fu": 3010, "dylan": 2878, "eric": 2875,
			"ryan": 3061, "aiden": 2861, "ono_anna": 2873, "sohee": 2864,
		},
		SpeakerDialect: map[string]string{"dylan": "beijing_dialect", "eric": "sichuan_dialect"},
	}
}

// Validate checks that every id lies in its vocabulary.
func (s *SpecialIDs) Validate() error {
	if s.TextVocab <= 0 || s.CodecVocab <= 0 || s.CodebookSize <= 0 || s.CodebookSize > s.CodecVocab {
		return fmt.Errorf("core: vocabularies text %d, codec %d, codebook %d invalid", s.TextVocab, s.CodecVocab, s.CodebookSize)
	}
	for _, t := range []struct {
		name string
		id   int32
	}{{"im_start", s.ImStart}, {"assistant", s.Assistant}, {"newline", s.Newline},
		{"tts_pad", s.TTSPad}, {"tts_bos", s.TTSBos}, {"tts_eos", s.TTSEos}} {
		if t.id < 0 || int(t.id) >= s.TextVocab {
			return fmt.Errorf("core: text id %s = %d outside [0, %d)", t.name, t.id, s.TextVocab)
		}
	}
	for _, t := range []struct {
		name string
		id   int32
	}{{"codec_pad", s.CodecPad}, {"codec_bos", s.CodecBos}, {"codec_eos", s.CodecEos},
		{"codec_think", s.CodecThink}, {"codec_nothink", s.CodecNoThink},
		{"codec_think_bos", s.CodecThinkBos}, {"codec_think_eos", s.CodecThinkEos}} {
		if t.id < 0 || int(t.id) >= s.CodecVocab {
			return fmt.Errorf("core: codec id %s = %d outside [0, %d)", t.name, t.id, s.CodecVocab)
		}
	}
	if int(s.CodecEos) < s.CodebookSize {
		return fmt.Errorf("core: codec_eos %d inside the codebook [0, %d)", s.CodecEos, s.CodebookSize)
	}
	for name, id := range s.Languages {
		if id < 0 || int(id) >= s.CodecVocab {
			return fmt.Errorf("core: language %s id %d outside [0, %d)", name, id, s.CodecVocab)
		}
	}
	for name, id := range s.Speakers {
		if id < 0 || int(id) >= s.CodecVocab {
			return fmt.Errorf("core: speaker %s row %d outside [0, %d)", name, id, s.CodecVocab)
		}
	}
	return nil
}
