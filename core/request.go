package core

import (
	"fmt"
	"strings"

	"github.com/omni-tts/omni/sampler"
)

// DefaultTalkerSampling is the released generation config for codebook 0,
// as the sampling contract (sampler.DefaultQwen3TTS) defines it:
// temperature 0.9, top-k 50, top-p 1, repetition penalty 1.05 (over earlier
// codebook-0 ids), at least 2 frames, no seed.
func DefaultTalkerSampling() sampler.Params { return sampler.DefaultQwen3TTS().Talker }

// DefaultPredictorSampling is the released sub-talker config for codebooks
// 1..15, as the sampling contract defines it: temperature 0.9, top-k 50,
// top-p 1, no penalty, no seed.
func DefaultPredictorSampling() sampler.Params { return sampler.DefaultQwen3TTS().Predictor }

// Seed returns a pointer to s, for sampler.Params.Seed.
func Seed(s int64) *int64 { return &s }

// Layout chooses how the text enters the talker prompt (docs/MODEL.md §4).
type Layout int

const (
	// Streaming feeds the first text token with codec_bos in the prompt and
	// the rest (then tts_eos) one row per frame while generating, then
	// tts_pad: the voice-clone default and the streaming-text mode.
	Streaming Layout = iota
	// NonStreaming puts all text (then tts_eos) in the prompt over codec_pad
	// rows and feeds tts_pad every frame: the custom-voice default.
	NonStreaming
)

// String returns "streaming" or "non-streaming".
func (l Layout) String() string {
	switch l {
	case Streaming:
		return "streaming"
	case NonStreaming:
		return "non-streaming"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// ParseLayout maps "streaming" and "non-streaming" ("" = streaming) to a Layout.
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "", "streaming":
		return Streaming, nil
	case "non-streaming", "nonstreaming":
		return NonStreaming, nil
	}
	return Streaming, fmt.Errorf("core: layout %q unknown (want streaming or non-streaming)", s)
}

// Request is one synthesis request. Text is given as text-vocabulary token
// ids of the words to speak (no role or special tokens: prompt construction
// adds them).
type Request struct {
	ID       string  // caller's label, echoed in the stream; may be empty
	TextIDs  []int32 // text token ids, at least one
	Language string  // a language name of the model's table, or "" / "auto"
	Speaker  string  // a speaker name of the model's table, or ""
	// SpeakerID, when Speaker is empty, names the speaker's codec row
	// directly (a CustomVoice row, 2048..3071); 0 means no speaker row.
	SpeakerID int32
	Layout    Layout
	// InstructIDs, when set, are the ids of the instruction wrapping
	// "<|im_start|>user\n{instruct}<|im_end|>\n" (text.Tokenizer.InstructIDs):
	// text-only rows prepended before the role rows. Only models that take
	// an instruction (SpecialIDs.TakesInstruct) accept them.
	InstructIDs []int32
	// RoleIDs, when set, replace the three role ids <|im_start|> assistant
	// "\n": the template tokenized as one string joins a text's leading
	// newline to the role's (text.Tokenizer.PromptIDs returns them).
	RoleIDs []int32

	// Talker samples codebook 0. Only temperature, top_k, top_p, min_p,
	// repetition_penalty, min_tokens and seed may be set: the engine adds
	// the Qwen3-TTS contract (EOS id, suppression of the control ids).
	Talker sampler.Params
	// Predictor samples codebooks 1..15: temperature, top_k, top_p, min_p
	// and seed; Qwen3-TTS uses no penalties there.
	Predictor sampler.Params

	// MaxFrames caps the frames generated; 0 derives the cap from the text
	// length (Limits). A stream that reaches it ends with EndLength.
	MaxFrames int

	// Embedded, when set, replaces the prompt built from TextIDs, Language
	// and Speaker with rows the caller embedded itself (a voice-clone
	// prompt with an x-vector or reference codes, a conformance case).
	// TextIDs may then be empty; the derived frame cap counts the trailing
	// rows as text tokens.
	Embedded *EmbeddedPrompt

	// Clone, when set, makes this a voice-cloning request on a Base model
	// (clone.go): its x-vector is the speaker row (Speaker and SpeakerID
	// must then be empty) and, in in-context mode, its reference text and
	// codes enter the prompt and its reference frames are decoded, unheard,
	// in front of the generated ones.
	Clone *Clone

	// Follows, when set, is the earlier stream of the same engine whose
	// audio this one continues (a long text's next segment, seam.go): its
	// frames are decoded with the decoder state Follows ended with, after
	// Follows' last audio. KeepCodec keeps this stream's decoder state at
	// its end for such a successor (Stream.ReleaseCodec frees it if none
	// comes). Both are for native engines: they do not cross to a WASI
	// guest, whose streams each start a fresh decoder.
	Follows   *Stream `json:"-"`
	KeepCodec bool    `json:"-"`

	// Live makes a stream that takes its text while it generates
	// (live.go): TextIDs holds the text known at submission (at least one
	// id, in the streaming layout), Stream.FeedText the rest, Stream.EndText
	// its end. MaxFrames must be set. Native engines only.
	Live bool `json:"-"`
}

// EmbeddedPrompt is a talker prompt given as embeddings (each row already
// the sum of its text and codec tracks), hidden values per row.
type EmbeddedPrompt struct {
	Rows     []float32 // T×hidden prefill rows, T >= 1
	Trailing []float32 // N×hidden rows added to the talker input after frames 0..N-1
	Pad      []float32 // hidden values added after that; nil means the model's tts_pad row
	// The engine reads these slices until the stream ends: do not modify them.
}

// validate checks the embedded prompt's shapes and values for hidden.
func (p *EmbeddedPrompt) validate(id string, hidden int) error {
	if len(p.Rows) == 0 || len(p.Rows)%hidden != 0 {
		return invalid("request %q: embedded prompt of %d values is not a positive multiple of hidden %d", id, len(p.Rows), hidden)
	}
	if len(p.Trailing)%hidden != 0 {
		return invalid("request %q: embedded trailing rows of %d values are not a multiple of hidden %d", id, len(p.Trailing), hidden)
	}
	if p.Pad != nil && len(p.Pad) != hidden {
		return invalid("request %q: embedded pad row of %d values, want hidden %d", id, len(p.Pad), hidden)
	}
	for _, part := range []struct {
		name string
		v    []float32
	}{{"prompt", p.Rows}, {"trailing", p.Trailing}, {"pad", p.Pad}} {
		for i, v := range part.v {
			if v != v || v > maxF32 || v < -maxF32 {
				return invalid("request %q: embedded %s value [%d] = %g not finite", id, part.name, i, v)
			}
		}
	}
	return nil
}

// maxF32 is the largest finite float32.
const maxF32 = 3.4028234663852886e38

// NewRequest returns a request for textIDs with automatic language, no
// speaker, the streaming layout and the released sampling defaults.
func NewRequest(textIDs []int32) Request {
	return Request{
		TextIDs:   textIDs,
		Talker:    DefaultTalkerSampling(),
		Predictor: DefaultPredictorSampling(),
	}
}

// Limits derive a request's frame cap when it gives none: max(Floor,
// PerTextToken × len(text)), and never more than MaxNewTokens (the
// generation config's max_new_tokens). A request's explicit MaxFrames must
// not exceed MaxNewTokens either.
type Limits struct {
	PerTextToken int // frames allowed per text token (default 5)
	Floor        int // minimum derived cap (default 64)
	MaxNewTokens int // absolute cap (default 8192)
}

// DefaultLimits returns 5 frames per text token, a floor of 64 frames and
// max_new_tokens 8192.
func DefaultLimits() Limits { return Limits{PerTextToken: 5, Floor: 64, MaxNewTokens: 8192} }

// Validate checks the limits.
func (l Limits) Validate() error {
	if l.PerTextToken < 1 || l.Floor < 1 || l.MaxNewTokens < 1 {
		return fmt.Errorf("core: limits per_text_token %d, floor %d, max_new_tokens %d must all be >= 1", l.PerTextToken, l.Floor, l.MaxNewTokens)
	}
	return nil
}

// Cap returns the frame cap for a request of textLen tokens asking for
// maxFrames (0 = derive).
func (l Limits) Cap(textLen, maxFrames int) int {
	if maxFrames > 0 {
		return min(maxFrames, l.MaxNewTokens)
	}
	return min(max(l.Floor, l.PerTextToken*textLen), l.MaxNewTokens)
}

// validate checks r against the model's ids and the engine's limits.
func (r *Request) validate(ids *SpecialIDs, lim Limits) error {
	if len(r.TextIDs) == 0 && r.Embedded == nil {
		return invalid("request %q: no text token ids", r.ID)
	}
	for i, t := range r.TextIDs {
		if t < 0 || int(t) >= ids.TextVocab {
			return invalid("request %q: text id [%d] = %d outside [0, %d)", r.ID, i, t, ids.TextVocab)
		}
	}
	if err := r.validateTextParts(ids); err != nil {
		return err
	}
	if r.Layout != Streaming && r.Layout != NonStreaming {
		return invalid("request %q: layout %d unknown", r.ID, int(r.Layout))
	}
	if _, err := r.languageID(ids); err != nil {
		return err
	}
	if _, _, err := r.speakerRow(ids); err != nil {
		return err
	}
	if err := r.validateClone(ids); err != nil {
		return err
	}
	if err := checkLevel("talker", &r.Talker, ids.CodecVocab, true); err != nil {
		return fmt.Errorf("%w: request %q: %w", ErrInvalidRequest, r.ID, err)
	}
	if err := checkLevel("predictor", &r.Predictor, ids.CodebookSize, false); err != nil {
		return fmt.Errorf("%w: request %q: %w", ErrInvalidRequest, r.ID, err)
	}
	if r.MaxFrames < 0 {
		return invalid("request %q: max_frames %d negative", r.ID, r.MaxFrames)
	}
	if r.Live && (r.Layout != Streaming || r.Embedded != nil || r.MaxFrames == 0) {
		return invalid("request %q: a live request needs the streaming layout, text ids and max_frames", r.ID)
	}
	if r.MaxFrames > lim.MaxNewTokens {
		return invalid("request %q: max_frames %d above max_new_tokens %d", r.ID, r.MaxFrames, lim.MaxNewTokens)
	}
	if cap := lim.Cap(r.textLen(0), r.MaxFrames); r.Talker.MinTokens > cap {
		return invalid("request %q: talker min_tokens %d above the frame cap %d", r.ID, r.Talker.MinTokens, cap)
	}
	return nil
}

// languageID returns the codec id of the request's language, or -1 for
// auto. A dialect speaker turns chinese and auto into its dialect.
func (r *Request) languageID(ids *SpecialIDs) (int32, error) {
	lang := strings.ToLower(r.Language)
	if strings.Contains(lang, "dialect") { // upstream offers dialects through their speakers only
		return 0, invalid("request %q: language %q unknown: a dialect is chosen by its speaker; the model knows auto, %s", r.ID, r.Language, languageNames(ids.Languages))
	}
	if d, ok := ids.SpeakerDialect[strings.ToLower(r.Speaker)]; ok && r.Speaker != "" && (lang == "" || lang == "auto" || lang == "chinese") {
		lang = d
	}
	if lang == "" || lang == "auto" {
		return -1, nil
	}
	id, ok := ids.Languages[lang]
	if !ok {
		return 0, invalid("request %q: language %q unknown: the model knows auto, %s", r.ID, r.Language, languageNames(ids.Languages))
	}
	return id, nil
}

// speakerRow returns the codec row of the request's speaker and whether it
// has one.
func (r *Request) speakerRow(ids *SpecialIDs) (int32, bool, error) {
	if r.Speaker != "" {
		id, ok := ids.Speakers[strings.ToLower(r.Speaker)]
		if !ok {
			if len(ids.Speakers) == 0 {
				return 0, false, invalid("request %q: speaker %q unknown: the model has no preset speakers", r.ID, r.Speaker)
			}
			return 0, false, invalid("request %q: speaker %q unknown: the model knows %s", r.ID, r.Speaker, names(ids.Speakers))
		}
		return id, true, nil
	}
	if r.SpeakerID == 0 {
		return 0, false, nil
	}
	if int(r.SpeakerID) < ids.CodebookSize || int(r.SpeakerID) >= ids.CodecVocab {
		return 0, false, invalid("request %q: speaker id %d outside the control rows [%d, %d)", r.ID, r.SpeakerID, ids.CodebookSize, ids.CodecVocab)
	}
	return r.SpeakerID, true, nil
}

// checkLevel validates one level's sampling parameters: vLLM's rules for a
// vocabulary of vocab ids, and none of the fields the engine owns (EOS,
// stop ids, allowed ids, bad words, bias, max_tokens) or Qwen3-TTS does not
// use at that level (penalties on the predictor; frequency and presence
// penalties anywhere).
func checkLevel(level string, p *sampler.Params, vocab int, talker bool) error {
	if err := p.Validate(vocab); err != nil {
		return fmt.Errorf("%s: %w", level, err)
	}
	switch {
	case p.EOSTokenID != nil || len(p.StopTokenIDs) > 0:
		return fmt.Errorf("%s: eos_token_id and stop_token_ids are set by the engine (codec_eos)", level)
	case p.AllowedTokenIDs != nil || len(p.BadWordsTokenIDs) > 0 || len(p.LogitBias) > 0:
		return fmt.Errorf("%s: allowed_token_ids, bad_words_token_ids and logit_bias are not offered (the engine applies the Qwen3-TTS suppression)", level)
	case p.MaxTokens != nil:
		return fmt.Errorf("%s: max_tokens is not offered: use the request's max_frames", level)
	case p.FrequencyPenalty != 0 || p.PresencePenalty != 0:
		return fmt.Errorf("%s: frequency_penalty %g and presence_penalty %g are not offered (Qwen3-TTS uses the repetition penalty only)", level, p.FrequencyPenalty, p.PresencePenalty)
	case !talker && (p.RepetitionPenalty != 1 || p.MinTokens != 0):
		return fmt.Errorf("%s: repetition_penalty %g and min_tokens %d must stay 1 and 0 (Qwen3-TTS uses none for codebooks 1..15)", level, p.RepetitionPenalty, p.MinTokens)
	}
	return nil
}

// textLen is the text length the frame cap derives from: the text ids, or
// for an embedded prompt of hidden-wide rows the larger of the ids and the
// trailing rows.
func (r *Request) textLen(hidden int) int {
	n := len(r.TextIDs)
	if r.Embedded != nil && hidden > 0 {
		n = max(n, len(r.Embedded.Trailing)/hidden)
	}
	return n
}
