package serve

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// cloning is the server's cloning state (embedded in Server).
type cloning struct {
	voices      *voiceCache
	vm          *voiceMetrics
	encodeSlots chan struct{} // Cloning.MaxEncodes
	fetcher     *http.Client  // ref_audio URLs
}

// initCloning checks the cloning configuration against the model and sets
// up the cache, its metrics and the encode slots; on a Base model it
// raises the speech body bound by a clip's base64 size.
func (s *Server) initCloning() error {
	cc := s.cfg.Cloning
	if s.info.ModelType == "Base" {
		if cc.Voices == nil {
			return fmt.Errorf("serve: model %s is a Base model: Config.Cloning.Voices is required", s.info.Name)
		}
		s.cfg.MaxBodyBytes += (cc.MaxClipBytes+2)/3*4 + 1024
	}
	s.vm = newVoiceMetrics(s.metrics.reg)
	s.voices = newVoiceCache(cc.CacheBytes, s.vm)
	s.encodeSlots = make(chan struct{}, cc.MaxEncodes)
	s.fetcher = &http.Client{Timeout: cc.URLTimeout}
	return nil
}

// clones reports whether the served model clones voices, answering 400
// when it does not.
func (s *Server) clones(w http.ResponseWriter) bool {
	if s.info.ModelType == "Base" {
		return true
	}
	writeError(w, http.StatusBadRequest, "invalid_request_error", "model", "cloning_unavailable",
		fmt.Sprintf("model %s serves %s voices; the voice library needs a Base model", s.info.Name, s.info.ModelType))
	return false
}

// uploadedVoice is one "uploaded_voices" entry and the answer to an
// upload: the library's entry plus vLLM-Omni's created_at (Unix seconds)
// and OpenAI's voice object fields (id, the name requests use in
// "voice": {"id"}; object "audio.voice"; type "audio_sample").
type uploadedVoice struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	Type   string `json:"type"`
	VoiceEntry
	CreatedAt int64 `json:"created_at"`
}

func newUploadedVoice(e VoiceEntry) uploadedVoice {
	return uploadedVoice{ID: e.Name, Object: "audio.voice", Type: "audio_sample", VoiceEntry: e, CreatedAt: e.Created.Unix()}
}

// handleVoices is GET /v1/audio/voices: the model's speakers ("voices"
// holds every name a request may use, "speakers" the presets' details)
// and the library's voices ("uploaded_voices").
func (s *Server) handleVoices(w http.ResponseWriter, r *http.Request) {
	names := make([]string, 0, len(s.info.Voices))
	for _, v := range s.info.Voices {
		names = append(names, v.Name)
	}
	voices := s.info.Voices
	if voices == nil {
		voices = []Voice{}
	}
	uploaded := []uploadedVoice{}
	if s.info.ModelType == "Base" {
		list, err := s.cfg.Cloning.Voices.List()
		if err != nil {
			s.writeErr(w, fmt.Errorf("serve: list the voice library: %w", err))
			return
		}
		for _, e := range list {
			names = append(names, e.Name)
			uploaded = append(uploaded, newUploadedVoice(e))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"voices": names, "speakers": voices, "uploaded_voices": uploaded})
}

// Bounds of an upload's text fields.
const (
	maxConsentChars = 2000
	maxFieldBytes   = 64 << 10 // any text part
)

// upload is a parsed POST /v1/audio/voices form.
type upload struct {
	name, consent, refText string
	xvOnly                 bool
	file                   []byte
	fileName               string
}

// handleVoiceAdd is POST /v1/audio/voices: a multipart form with name,
// consent, the clip (file, or audio_sample as OpenAI's and vLLM-Omni's
// clients send it), and optional ref_text, x_vector_only and type
// ("audio_sample"). The clip is encoded once and kept in the library; 201
// with the voice's entry, an OpenAI voice object.
func (s *Server) handleVoiceAdd(w http.ResponseWriter, r *http.Request) {
	if !s.clones(w) {
		return
	}
	if s.draining.Load() {
		s.writeErr(w, ErrDraining) // no new encodings while the server drains
		return
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		writeError(w, http.StatusUnsupportedMediaType, "invalid_request_error", "body", "unsupported_media_type",
			fmt.Sprintf("body: Content-Type %q; send multipart/form-data with name, consent and file", r.Header.Get("Content-Type")))
		return
	}
	limit := s.cfg.Cloning.MaxClipBytes + 2*maxFieldBytes
	if r.ContentLength > limit {
		w.Header().Set("Connection", "close")
		s.writeErr(w, &http.MaxBytesError{Limit: limit})
		return
	}
	up, err := s.readUpload(multipart.NewReader(http.MaxBytesReader(w, r.Body, limit), params["boundary"]))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	if _, err := s.cfg.Cloning.Voices.Load(up.name); err == nil {
		s.voiceExists(w, up.name)
		return
	} else if !errors.Is(err, ErrVoiceNotFound) {
		s.writeErr(w, fmt.Errorf("serve: look up voice %q: %w", up.name, err))
		return
	}
	v, err := s.prepareClip(r.Context(), "file", up.fileName, up.file, up.refText, up.xvOnly)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	e := VoiceEntry{Name: up.name, Mode: v.Mode, Seconds: v.Seconds, Created: time.Now().UTC().Truncate(time.Second),
		Consent: up.consent, RefText: v.RefText}
	if err := s.cfg.Cloning.Voices.Save(e, v); err != nil {
		if errors.Is(err, ErrVoiceExists) {
			s.voiceExists(w, up.name)
			return
		}
		s.writeErr(w, fmt.Errorf("serve: save voice %q: %w", up.name, err))
		return
	}
	s.voices.put("voice:"+up.name, v)
	writeJSON(w, http.StatusCreated, newUploadedVoice(e))
}

func (s *Server) voiceExists(w http.ResponseWriter, name string) {
	writeError(w, http.StatusConflict, "invalid_request_error", "name", "voice_exists",
		fmt.Sprintf("name: voice %q exists (DELETE /v1/audio/voices/%s first)", name, name))
}

// readUpload reads the form's parts, each bounded, refusing unknown and
// repeated fields by name.
func (s *Server) readUpload(mr *multipart.Reader) (upload, error) {
	var up upload
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return up, multipartError(err)
		}
		field := part.FormName()
		switch field {
		case "audio_sample", "audio":
			field = "file" // vLLM-Omni's and a common name for the clip
		case "x_vector_only_mode":
			field = "x_vector_only"
		}
		if seen[field] {
			return up, &FieldError{Field: field, Msg: "given twice"}
		}
		seen[field] = true
		limit := int64(maxFieldBytes)
		if field == "file" {
			limit = s.cfg.Cloning.MaxClipBytes
		}
		b, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return up, multipartError(err)
		}
		if int64(len(b)) > limit {
			if field == "file" {
				return up, &TooLongError{Field: "file", Len: len(b), Limit: int(limit), Unit: "bytes (or more)"}
			}
			return up, &TooLongError{Field: field, Len: len(b), Limit: int(limit), Unit: "bytes (or more)"}
		}
		if field != "file" && !utf8.Valid(b) {
			return up, &FieldError{Field: field, Msg: "not valid UTF-8"}
		}
		switch field {
		case "name":
			up.name = strings.TrimSpace(string(b))
		case "consent":
			up.consent = strings.TrimSpace(string(b))
		case "ref_text":
			up.refText = string(b)
		case "type":
			// OpenAI's creation method: only from an audio sample here.
			if t := strings.TrimSpace(string(b)); t != "audio_sample" {
				return up, &FieldError{Field: field, Msg: fmt.Sprintf("%q: voices are made from an audio sample here (audio_sample)", truncate(t, 20))}
			}
		case "x_vector_only":
			v, err := strconv.ParseBool(strings.TrimSpace(string(b)))
			if err != nil {
				return up, &FieldError{Field: field, Msg: fmt.Sprintf("%q is not a boolean (true or false)", truncate(string(b), 20))}
			}
			up.xvOnly = v
		case "file":
			up.file, up.fileName = b, part.FileName()
		case "":
			return up, &FieldError{Field: "body", Msg: "a form part has no name"}
		default:
			return up, &FieldError{Field: field, Msg: "unknown field (name, consent, file or audio_sample, ref_text, x_vector_only, type)"}
		}
	}
	if err := CheckVoiceName(up.name); err != nil {
		return up, &FieldError{Field: "name", Msg: err.Error()}
	}
	switch {
	case up.consent == "":
		return up, &FieldError{Field: "consent", Msg: "required: a statement that the speaker agreed to have their voice cloned"}
	case utf8.RuneCountInString(up.consent) > maxConsentChars:
		return up, &TooLongError{Field: "consent", Len: utf8.RuneCountInString(up.consent), Limit: maxConsentChars, Unit: "characters"}
	case !seen["file"]:
		return up, &FieldError{Field: "file", Msg: "required: the reference clip (WAV, FLAC or MP3)"}
	case len(up.file) == 0:
		return up, &FieldError{Field: "file", Msg: "empty"}
	}
	if n := utf8.RuneCountInString(up.refText); n > s.cfg.MaxInputChars {
		return up, &TooLongError{Field: "ref_text", Len: n, Limit: s.cfg.MaxInputChars, Unit: "characters"}
	}
	if !up.xvOnly && strings.TrimSpace(up.refText) == "" {
		return up, &FieldError{Field: "ref_text", Msg: "required for in-context cloning (the default): give the clip's transcript, or set x_vector_only true"}
	}
	if up.xvOnly {
		up.refText = ""
	}
	if up.fileName == "" {
		up.fileName = "file"
	}
	return up, nil
}

// multipartError maps a failure to read the form: the size bound (413),
// the read timeout (408), or a malformed body (400).
func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return mbe
	}
	if e := bodyError(err); !errors.Is(e, errBodyTimeout) {
		return &FieldError{Field: "body", Msg: "malformed multipart form: " + err.Error()}
	} else {
		return e
	}
}

// handleVoiceDelete is DELETE /v1/audio/voices/{name}: 404 for a name the
// library does not hold.
func (s *Server) handleVoiceDelete(w http.ResponseWriter, r *http.Request) {
	if !s.clones(w) {
		return
	}
	name := r.PathValue("name")
	if err := CheckVoiceName(name); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "name", "invalid_value", "name: "+err.Error())
		return
	}
	s.voices.remove("voice:" + name)
	if err := s.cfg.Cloning.Voices.Delete(name); err != nil {
		if errors.Is(err, ErrVoiceNotFound) {
			writeError(w, http.StatusNotFound, "invalid_request_error", "name", "voice_not_found", fmt.Sprintf("name: no voice %q in the library", name))
			return
		}
		s.writeErr(w, fmt.Errorf("serve: delete voice %q: %w", name, err))
		return
	}
	s.voices.remove("voice:" + name)
	writeJSON(w, http.StatusOK, map[string]any{"id": name, "name": name, "object": "audio.voice.deleted", "deleted": true})
}
