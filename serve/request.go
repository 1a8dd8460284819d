package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/omni-tts/omni/audio"
)

// Response formats and stream formats a request may name.
const (
	FormatWAV  = audio.FormatWAV
	FormatPCM  = audio.FormatPCM
	FormatMP3  = audio.FormatMP3
	FormatFLAC = audio.FormatFLAC
	FormatOpus = "opus"
	FormatAAC  = "aac"

	StreamAudio = "audio"
	StreamSSE   = "sse"
)

// unsupportedFields are vLLM-Omni request fields serve recognises but does
// not implement; naming them in a 400 beats silently ignoring a voice clone.
// (ref_audio, ref_text and x_vector_only_mode are taken on Base models:
// clone.go.)
var unsupportedFields = []string{
	"speaker_embedding",
	"initial_codec_chunk_frames", "non_streaming_mode", "extra_params",
}

// speechParams is a decoded /v1/audio/speech body: what the synthesizer gets
// and how serve must encode and frame the answer.
type speechParams struct {
	Model        string
	Format       string // wav, pcm, mp3
	StreamFormat string // audio, sse
	// Speed is the playback speed (1 unless the request set "speed"):
	// serve stretches the engine's audio by it (serve/speed.go).
	Speed float64
	Req   SpeechRequest
	// Clone is the voice reference of a request to a Base model (clone.go),
	// resolved into Req.Clone by the server before admission.
	Clone *cloneParams
}

// requestLimits are the checks that depend on the server's configuration and
// the model, applied by decodeSpeech.
type requestLimits struct {
	Info          ModelInfo
	ModelAliases  []string
	DefaultFormat string
	MaxInputChars int
	// MaxClipBytes bounds a ref_audio clip (decoded); RefAudioURLs lets
	// ref_audio be an http(s) URL (clone.go).
	MaxClipBytes int64
	RefAudioURLs bool
}

// decodeSpeech parses and validates a /v1/audio/speech body. It never panics
// on any input; the error is a *FieldError (400), *TooLongError (413) or
// *modelError (404).
func decodeSpeech(body []byte, lim requestLimits) (speechParams, error) {
	var p speechParams
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		msg := "body is not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return p, &FieldError{Field: "body", Msg: msg}
	}
	if dec.More() {
		return p, &FieldError{Field: "body", Msg: "trailing data after the JSON object"}
	}
	// encoding/json replaces invalid UTF-8 and lone surrogate escapes with
	// U+FFFD, so the text is checked on the raw bytes, field by field.
	if err := checkRawText(body, raw); err != nil {
		return p, err
	}
	for _, f := range unsupportedFields {
		if _, ok := raw[f]; ok {
			return p, &FieldError{Field: f, Msg: "not supported by this server"}
		}
	}

	var err error
	if p.Model, err = optString(raw, "model"); err != nil {
		return p, err
	}
	if p.Model != "" && !modelKnown(p.Model, lim) {
		return p, &modelError{Model: p.Model}
	}

	input, err := optString(raw, "input")
	if err != nil {
		return p, err
	}
	if _, ok := raw["input"]; !ok {
		return p, &FieldError{Field: "input", Msg: "required"}
	}
	if strings.TrimSpace(input) == "" {
		return p, &FieldError{Field: "input", Msg: "empty"}
	}
	if n := utf8.RuneCountInString(input); lim.MaxInputChars > 0 && n > lim.MaxInputChars {
		return p, &TooLongError{Field: "input", Len: n, Limit: lim.MaxInputChars, Unit: "characters"}
	}
	p.Req.Input = input

	if lim.Info.ModelType == "Base" {
		c, err := decodeClone(raw, lim)
		if err != nil {
			return p, err
		}
		p.Clone = &c
	} else {
		if err := refuseClone(raw, lim.Info); err != nil {
			return p, err
		}
		if p.Req.Voice, err = decodeVoice(raw, lim.Info); err != nil {
			return p, err
		}
	}

	if p.Req.Instructions, err = optString(raw, "instructions"); err != nil {
		return p, err
	}
	if p.Req.Instructions != "" {
		if !lim.Info.Instructions {
			return p, &FieldError{Field: "instructions", Msg: fmt.Sprintf("model %s does not take instructions", lim.Info.Name)}
		}
		if n := utf8.RuneCountInString(p.Req.Instructions); lim.MaxInputChars > 0 && n > lim.MaxInputChars {
			return p, &TooLongError{Field: "instructions", Len: n, Limit: lim.MaxInputChars, Unit: "characters"}
		}
	}

	if p.Format, err = optString(raw, "response_format"); err != nil {
		return p, err
	}
	if p.Format == "" {
		p.Format = lim.DefaultFormat
	}
	switch p.Format {
	case FormatWAV, FormatPCM, FormatMP3, FormatFLAC, FormatOpus:
	case FormatAAC:
		return p, &FieldError{Field: "response_format", Msg: fmt.Sprintf("%q is not supported by this server (supported: wav, pcm, mp3, flac, opus)", p.Format)}
	default:
		return p, &FieldError{Field: "response_format", Msg: fmt.Sprintf("unknown format %q (supported: wav, pcm, mp3, flac, opus)", p.Format)}
	}

	if p.Speed, err = decodeSpeed(raw); err != nil {
		return p, err
	}

	if p.StreamFormat, err = optString(raw, "stream_format"); err != nil {
		return p, err
	}
	stream, hasStream, err := optBool(raw, "stream")
	if err != nil {
		return p, err
	}
	switch p.StreamFormat {
	case "":
		p.StreamFormat = StreamAudio
		if hasStream && stream {
			p.StreamFormat = StreamSSE // vLLM-Omni: stream=true alone means SSE
		}
	case StreamAudio, StreamSSE:
	default:
		return p, &FieldError{Field: "stream_format", Msg: fmt.Sprintf("unknown %q (audio or sse)", p.StreamFormat)}
	}

	if p.Req.Language, err = decodeLanguage(raw, lim.Info); err != nil {
		return p, err
	}
	if p.Req.TaskType, err = optString(raw, "task_type"); err != nil {
		return p, err
	}
	switch p.Req.TaskType {
	case "":
	case "CustomVoice", "VoiceDesign", "Base":
		if lim.Info.ModelType != "" && p.Req.TaskType != lim.Info.ModelType {
			return p, &FieldError{Field: "task_type", Msg: fmt.Sprintf("%s: model %s serves %s", p.Req.TaskType, lim.Info.Name, lim.Info.ModelType)}
		}
	default:
		return p, &FieldError{Field: "task_type", Msg: fmt.Sprintf("unknown %q (CustomVoice, VoiceDesign or Base)", p.Req.TaskType)}
	}

	if n, ok, err := optInt(raw, "max_new_tokens"); err != nil {
		return p, err
	} else if ok {
		if n < 1 || (lim.Info.MaxNewTokens > 0 && n > int64(lim.Info.MaxNewTokens)) {
			return p, &FieldError{Field: "max_new_tokens", Msg: fmt.Sprintf("%d outside [1, %d]", n, lim.Info.MaxNewTokens)}
		}
		p.Req.MaxNewTokens = int(n)
	}
	if n, ok, err := optInt(raw, "seed"); err != nil {
		return p, err
	} else if ok {
		if n < 0 {
			return p, &FieldError{Field: "seed", Msg: fmt.Sprintf("%d is negative", n)}
		}
		s := uint64(n)
		p.Req.Seed = &s
	}
	if v, ok, err := optNumber(raw, "temperature"); err != nil {
		return p, err
	} else if ok {
		if v < 0 || v > 100 {
			return p, &FieldError{Field: "temperature", Msg: fmt.Sprintf("%g outside [0, 100]", v)}
		}
		p.Req.Temperature = &v
	}
	if v, ok, err := optNumber(raw, "top_p"); err != nil {
		return p, err
	} else if ok {
		if v <= 0 || v > 1 {
			return p, &FieldError{Field: "top_p", Msg: fmt.Sprintf("%g outside (0, 1]", v)}
		}
		p.Req.TopP = &v
	}
	if n, ok, err := optInt(raw, "top_k"); err != nil {
		return p, err
	} else if ok {
		if n < -1 || n > 1<<20 {
			return p, &FieldError{Field: "top_k", Msg: fmt.Sprintf("%d outside [-1, 1048576] (-1 or 0 disables)", n)}
		}
		k := int(n)
		p.Req.TopK = &k
	}
	if v, ok, err := optNumber(raw, "repetition_penalty"); err != nil {
		return p, err
	} else if ok {
		if v < MinRepetitionPenalty || v > 100 {
			return p, &FieldError{Field: "repetition_penalty", Msg: fmt.Sprintf(
				"%g outside [%g, 100] (below %g the penalty can overflow the logits to infinity)", v, MinRepetitionPenalty, MinRepetitionPenalty)}
		}
		p.Req.RepetitionPenalty = &v
	}
	return p, nil
}

// MinRepetitionPenalty is the smallest repetition_penalty serve accepts.
// The penalty scales a repeated id's positive logit by fp32(1/r) and the
// temperature then divides it by T ≥ 1e-5 (below that sampling is greedy),
// so a finite logit x stays finite only while x/(r·T) ≤ MaxFloat32 ≈
// 3.4e38. At r = 1e-38 and T = 1 any repeated logit above 3.4 overflows
// to +Inf, which the sampler refuses. With r ≥ 0.01 the
// largest factor is 1/(0.01·1e-5) = 1e7, so only a logit above 3.4e31
// could overflow, far beyond any a finite model makes (Qwen3-TTS's are
// tens); 0.01 is also the reciprocal of the ceiling 100, so the range is
// symmetric. The engine still ends any request whose logits turn
// non-finite with an error, alone.
const MinRepetitionPenalty = 0.01

// checkRawText refuses invalid UTF-8 and unpaired UTF-16 surrogate escapes
// (\ud800 alone) in the raw body, naming the top-level field that holds
// them (or "body" when it is a key or no field).
func checkRawText(body []byte, raw map[string]json.RawMessage) error {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if msg := rawTextProblem(raw[k]); msg != "" {
			return &FieldError{Field: k, Msg: msg}
		}
	}
	if msg := rawTextProblem(body); msg != "" {
		return &FieldError{Field: "body", Msg: msg}
	}
	return nil
}

// rawTextProblem describes the first invalid UTF-8 byte or unpaired
// surrogate escape of a JSON text, or returns "".
func rawTextProblem(b []byte) string {
	if !utf8.Valid(b) {
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("not valid UTF-8 (byte 0x%02x at offset %d)", b[i], i)
			}
			i += n
		}
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // an escaped character: skip it (it may be a backslash)
			continue
		}
		u, ok := hex4(b[i+2:])
		switch {
		case !ok:
			i++
		case u >= 0xD800 && u <= 0xDBFF:
			lo, ok := uint16(0), false
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				lo, ok = hex4(b[i+8:])
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Sprintf(`unpaired UTF-16 surrogate \u%04x (not text)`, u)
			}
			i += 11
		case u >= 0xDC00 && u <= 0xDFFF:
			return fmt.Sprintf(`unpaired UTF-16 surrogate \u%04x (not text)`, u)
		default:
			i += 5
		}
	}
	return ""
}

// hex4 reads four hex digits.
func hex4(b []byte) (uint16, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var v uint16
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint16(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint16(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint16(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// modelError is an unknown "model": 404.
type modelError struct{ Model string }

func (e *modelError) Error() string {
	return fmt.Sprintf("serve: model %q is not served here", e.Model)
}

func modelKnown(m string, lim requestLimits) bool {
	if m == lim.Info.Name {
		return true
	}
	for _, a := range lim.ModelAliases {
		if m == a {
			return true
		}
	}
	return false
}

// decodeVoice reads "voice" (a string or {"id": string}) or its vLLM-Omni
// alias "speaker", and checks it against the model's speakers
// (case-insensitively, returning the model's spelling).
func decodeVoice(raw map[string]json.RawMessage, info ModelInfo) (string, error) {
	field, name, err := voiceName(raw)
	if err != nil {
		return "", err
	}
	if name == "" {
		if len(info.Voices) > 0 {
			return info.Voices[0].Name, nil
		}
		return "", nil
	}
	for _, v := range info.Voices {
		if strings.EqualFold(v.Name, name) {
			return v.Name, nil
		}
	}
	return "", &FieldError{Field: field, Msg: fmt.Sprintf("unknown voice %q (GET /v1/audio/voices lists them)", name)}
}

// decodeLanguage reads "language": "Auto", "" or a model language
// (case-insensitive); "" in the result means automatic.
func decodeLanguage(raw map[string]json.RawMessage, info ModelInfo) (string, error) {
	lang, err := optString(raw, "language")
	if err != nil || lang == "" || strings.EqualFold(lang, "auto") {
		return "", err
	}
	for _, l := range info.Languages {
		if strings.EqualFold(l, lang) {
			return l, nil
		}
	}
	return "", &FieldError{Field: "language", Msg: fmt.Sprintf("unknown language %q (Auto or one of %s)", lang, strings.Join(info.Languages, ", "))}
}

func isNull(m json.RawMessage) bool { return string(bytes.TrimSpace(m)) == "null" }

func optString(raw map[string]json.RawMessage, field string) (string, error) {
	m, ok := raw[field]
	if !ok || isNull(m) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m, &s); err != nil {
		return "", &FieldError{Field: field, Msg: "must be a string"}
	}
	return s, nil
}

func optBool(raw map[string]json.RawMessage, field string) (v, ok bool, err error) {
	m, ok := raw[field]
	if !ok || isNull(m) {
		return false, false, nil
	}
	if err := json.Unmarshal(m, &v); err != nil {
		return false, false, &FieldError{Field: field, Msg: "must be a boolean"}
	}
	return v, true, nil
}

func optNumber(raw map[string]json.RawMessage, field string) (v float64, ok bool, err error) {
	m, ok := raw[field]
	if !ok || isNull(m) {
		return 0, false, nil
	}
	if err := json.Unmarshal(m, &v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, &FieldError{Field: field, Msg: "must be a number"}
	}
	return v, true, nil
}

func optInt(raw map[string]json.RawMessage, field string) (v int64, ok bool, err error) {
	m, ok := raw[field]
	if !ok || isNull(m) {
		return 0, false, nil
	}
	if err := json.Unmarshal(m, &v); err != nil {
		return 0, false, &FieldError{Field: field, Msg: "must be an integer"}
	}
	return v, true, nil
}
