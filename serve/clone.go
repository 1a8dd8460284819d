package serve

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// cloneFields are the request fields of a cloning request (vLLM-Omni's);
// a model that is not Base refuses each by name.
var cloneFields = []string{"ref_audio", "ref_text", "x_vector_only_mode"}

// cloneParams is the voice reference of a speech request on a Base model:
// a library voice, or a clip of its own (ref_audio) with its transcript.
type cloneParams struct {
	// Voice names a library voice (from "voice", "voice": {"id"} or
	// "speaker"); VoiceField is the field that named it.
	Voice, VoiceField string
	// Clip is ref_audio's bytes (base64 or a data URL, decoded); URL is
	// ref_audio when it is an http(s) URL (fetched later, and only when
	// Config.RefAudioURLs allows it).
	Clip []byte
	URL  string
	// RefText is the clip's transcript; XVectorOnly asks for the speaker
	// embedding alone.
	RefText     string
	XVectorOnly bool
}

// mode is the cloning mode of a ref_audio request.
func (c *cloneParams) mode() string {
	if c.XVectorOnly {
		return VoiceModeXVector
	}
	return VoiceModeInContext
}

// refuseClone refuses the clone fields on a model that is not Base,
// naming the first one present.
func refuseClone(raw map[string]json.RawMessage, info ModelInfo) error {
	for _, f := range cloneFields {
		if m, ok := raw[f]; ok && !isNull(m) {
			return &FieldError{Field: f, Msg: fmt.Sprintf("model %s serves %s voices; cloning from a reference needs a Base model", info.Name, info.ModelType)}
		}
	}
	return nil
}

// voiceName reads "voice" (a string or OpenAI's {"id": string}) or its
// vLLM-Omni alias "speaker": the field that named it and the name ("" when
// none).
func voiceName(raw map[string]json.RawMessage) (field, name string, err error) {
	field = "voice"
	msg, ok := raw["voice"]
	if !ok {
		if msg, ok = raw["speaker"]; ok {
			field = "speaker"
		}
	}
	if !ok || isNull(msg) {
		return field, "", nil
	}
	if err := json.Unmarshal(msg, &name); err != nil {
		var obj struct {
			ID *string `json:"id"`
		}
		if err := json.Unmarshal(msg, &obj); err != nil || obj.ID == nil {
			return field, "", &FieldError{Field: field, Msg: `must be a string or an object {"id": string}`}
		}
		name = *obj.ID
	}
	return field, name, nil
}

// decodeClone reads the voice reference of a request to a Base model: a
// library voice named by "voice", or ref_audio with ref_text and
// x_vector_only_mode; exactly one of the two. In-context mode, the
// default, needs ref_text. The clip's bytes are decoded
// here (base64 or a data URL) and bounded by lim.MaxClipBytes (413); an
// http(s) URL is kept for the server to fetch, refused unless
// lim.RefAudioURLs.
func decodeClone(raw map[string]json.RawMessage, lim requestLimits) (cloneParams, error) {
	var c cloneParams
	var err error
	if c.VoiceField, c.Voice, err = voiceName(raw); err != nil {
		return c, err
	}
	ref, err := optString(raw, "ref_audio")
	if err != nil {
		return c, err
	}
	if c.RefText, err = optString(raw, "ref_text"); err != nil {
		return c, err
	}
	xv, hasXV, err := optBool(raw, "x_vector_only_mode")
	if err != nil {
		return c, err
	}
	if ref == "" {
		if _, ok := raw["ref_audio"]; ok && !isNull(raw["ref_audio"]) {
			return c, &FieldError{Field: "ref_audio", Msg: "empty"}
		}
		switch {
		case c.RefText != "":
			return c, &FieldError{Field: "ref_text", Msg: "needs ref_audio (a library voice carries its own transcript)"}
		case hasXV:
			return c, &FieldError{Field: "x_vector_only_mode", Msg: "needs ref_audio (a library voice keeps the mode it was added with)"}
		case c.Voice == "":
			return c, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf(
				"model %s is a Base model: give ref_audio (a reference clip) or voice naming a library voice (GET /v1/audio/voices lists them)", lim.Info.Name)}
		}
		if err := CheckVoiceName(c.Voice); err != nil {
			return c, &FieldError{Field: c.VoiceField, Msg: "voice name " + err.Error()}
		}
		return c, nil
	}
	if c.Voice != "" {
		return c, &FieldError{Field: c.VoiceField, Msg: fmt.Sprintf(
			"both %s (%q) and ref_audio name a voice reference; give one", c.VoiceField, c.Voice)}
	}
	if n := utf8.RuneCountInString(c.RefText); lim.MaxInputChars > 0 && n > lim.MaxInputChars {
		return c, &TooLongError{Field: "ref_text", Len: n, Limit: lim.MaxInputChars, Unit: "characters"}
	}
	// In-context (upstream's default) needs the transcript; without one
	// the request must ask for the speaker embedding alone, rather than
	// get a looser likeness silently (as omni voice add and say refuse).
	c.XVectorOnly = hasXV && xv
	if !c.XVectorOnly && strings.TrimSpace(c.RefText) == "" {
		return c, &FieldError{Field: "ref_text", Msg: "required for in-context cloning (the default): give the clip's transcript, or set x_vector_only_mode true"}
	}
	if c.XVectorOnly {
		c.RefText = ""
	}
	if c.URL, c.Clip, err = decodeRefAudio(ref, lim); err != nil {
		return c, err
	}
	return c, nil
}

// decodeRefAudio decodes ref_audio: a data URL ("data:audio/wav;base64,…"),
// plain base64 (standard or URL-safe alphabet, padded or not, line breaks
// allowed), or an http(s) URL, returned as url when lim.RefAudioURLs
// allows it. Every other form is refused naming ref_audio.
func decodeRefAudio(ref string, lim requestLimits) (url string, clip []byte, err error) {
	lower := strings.ToLower(ref[:min(len(ref), 16)])
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		if !lim.RefAudioURLs {
			return "", nil, &FieldError{Field: "ref_audio", Msg: "URLs are not fetched by this server (omni serve --ref-audio-urls allows them); send the clip as base64 or a data URL"}
		}
		return ref, nil, nil
	case strings.HasPrefix(lower, "data:"):
		meta, data, ok := strings.Cut(ref[5:], ",")
		if !ok {
			return "", nil, &FieldError{Field: "ref_audio", Msg: "data URL without a comma"}
		}
		if !strings.HasSuffix(strings.ToLower(meta), ";base64") {
			return "", nil, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf("data URL %q is not base64 (want data:audio/…;base64,…)", truncate(meta, 40))}
		}
		ref = data
	case strings.Contains(lower, "://"):
		return "", nil, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf("%q: only http(s) URLs, data URLs and base64 are taken", truncate(ref, 24))}
	}
	clip, err = decodeBase64(ref, lim.MaxClipBytes)
	if err != nil {
		return "", nil, err
	}
	return "", clip, nil
}

// decodeBase64 decodes s (either alphabet, padding optional, ASCII
// whitespace ignored), refusing more than limit decoded bytes (413).
func decodeBase64(s string, limit int64) ([]byte, error) {
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	s = strings.TrimRight(s, "=")
	if n := int64(len(s)) * 3 / 4; limit > 0 && n > limit {
		return nil, &TooLongError{Field: "ref_audio", Len: int(n), Limit: int(limit), Unit: "bytes of audio"}
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		msg := "not base64, a data URL or an http(s) URL"
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			msg += fmt.Sprintf(" (bad base64 at character %d)", int64(ce))
		}
		return nil, &FieldError{Field: "ref_audio", Msg: msg}
	}
	if len(b) == 0 {
		return nil, &FieldError{Field: "ref_audio", Msg: "empty"}
	}
	return b, nil
}

// truncate shortens s to n bytes (at a rune boundary) for a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
