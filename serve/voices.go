package serve

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Voices is what serve needs to clone voices on a Base model: prepare a
// reference clip (the speaker embedding and, in in-context mode, the
// reference codes) and keep prepared voices in a library. The adapter over
// the engine implements it (serve/engine.Voices); servetest.Voices is a
// fake. serve decodes and checks the clip itself, caches what Prepare and
// Load return (Config.VoiceCacheBytes), and passes a PreparedVoice to the
// Synthesizer in SpeechRequest.Clone. Its methods are called from many
// goroutines at once.
type Voices interface {
	// Prepare encodes a reference clip. A clip the encoders refuse is a
	// *FieldError naming "ref_audio" (or "file" for an upload: serve
	// renames the field); anything else is a 500.
	Prepare(ctx context.Context, clip VoiceClip) (*PreparedVoice, error)
	// Save stores p in the library under e.Name with e's consent and
	// creation time; a taken name is ErrVoiceExists.
	Save(e VoiceEntry, p *PreparedVoice) error
	// Load reads the library voice name; an unknown name is
	// ErrVoiceNotFound.
	Load(name string) (*PreparedVoice, error)
	// List describes the library's voices, sorted by name.
	List() ([]VoiceEntry, error)
	// Delete removes the library voice name; an unknown name is
	// ErrVoiceNotFound.
	Delete(name string) error
}

// Voice cloning modes (vLLM-Omni's x_vector_only_mode true and false).
const (
	// VoiceModeXVector conditions on the speaker embedding alone.
	VoiceModeXVector = "x_vector"
	// VoiceModeInContext also puts the reference transcript and codes in
	// the prompt (the default when a ref_text is given).
	VoiceModeInContext = "in_context"
)

// VoiceClip is a decoded reference clip as serve hands it to
// Voices.Prepare: mono float32 samples at SampleRate, within the server's
// length bound.
type VoiceClip struct {
	// Name names the clip in errors ("ref_audio", or the upload's file name).
	Name    string
	Samples []float32
	// RefText is the clip's transcript (in-context mode; may be empty in
	// x-vector mode).
	RefText string
	// XVectorOnly asks for the speaker embedding alone (no codes).
	XVectorOnly bool
}

// Seconds is the clip's duration.
func (c VoiceClip) Seconds() float64 { return float64(len(c.Samples)) / SampleRate }

// PreparedVoice is a voice ready for synthesis: what the engine conditions
// on, opaque to serve, with what serve needs to cache and describe it.
// Once made it is not modified: many requests read one at once.
type PreparedVoice struct {
	// Mode is VoiceModeXVector or VoiceModeInContext.
	Mode string
	// RefText is the reference transcript (in-context mode).
	RefText string
	// Seconds is the reference clip's duration.
	Seconds float64
	// Bytes is the memory the voice holds (serve's cache bound counts it).
	Bytes int64
	// Ref is the engine's prepared reference (serve/engine: a *voice.Voice;
	// servetest: whatever the fake made).
	Ref any
}

// VoiceEntry describes a library voice (GET /v1/audio/voices lists them
// as "uploaded_voices").
type VoiceEntry struct {
	Name string `json:"name"`
	// Mode is VoiceModeXVector or VoiceModeInContext.
	Mode string `json:"mode"`
	// Seconds is the reference clip's duration ("duration").
	Seconds float64 `json:"duration"`
	// Created is when the voice was added.
	Created time.Time `json:"created"`
	// Consent is the uploader's consent statement, as given.
	Consent string `json:"consent,omitempty"`
	// RefText is the reference transcript (in-context mode).
	RefText string `json:"ref_text,omitempty"`
}

// ErrVoiceNotFound is returned by Voices.Load and Voices.Delete for a name
// the library does not hold (404 on DELETE, 400 naming "voice" in a
// speech request).
var ErrVoiceNotFound = errors.New("serve: no such voice")

// ErrVoiceExists is returned by Voices.Save for a name already taken (409).
var ErrVoiceExists = errors.New("serve: voice name taken")

// MaxVoiceNameLen bounds a library voice's name.
const MaxVoiceNameLen = 64

// CheckVoiceName refuses a library voice name that is empty, longer than
// MaxVoiceNameLen, or holds anything but ASCII letters, digits, '-', '_'
// and '.' (a name becomes a file name), or starts with '.'.
func CheckVoiceName(name string) error {
	switch {
	case name == "":
		return errors.New("empty")
	case len(name) > MaxVoiceNameLen:
		return fmt.Errorf("%d bytes, limit %d", len(name), MaxVoiceNameLen)
	case name[0] == '.':
		return fmt.Errorf("%q starts with '.'", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("%q: byte %d (%q) is not a letter, digit, '-', '_' or '.'", name, i, c)
		}
	}
	return nil
}

// CloneConfig is the cloning part of Config: the voice store and the
// bounds of reference clips. The zero value of a field takes the default
// named in its comment.
type CloneConfig struct {
	// Voices prepares and keeps cloned voices; required when the model is
	// a Base model, unused otherwise.
	Voices Voices
	// MaxClipBytes bounds a reference clip's file (an upload's, or
	// ref_audio's once decoded from base64) (default 10 MiB); larger is a
	// 413. A speech request's body may then be as large as the clip in
	// base64 plus Config.MaxBodyBytes.
	MaxClipBytes int64
	// MaxClipSeconds bounds a clip's duration (default 30 s); longer is a
	// 400 naming the bound.
	MaxClipSeconds float64
	// CacheBytes bounds the prepared voices kept in memory (default
	// 64 MiB), least recently used out first.
	CacheBytes int64
	// MaxEncodes bounds the clips encoded at once (default 1); more wait.
	MaxEncodes int
	// RefAudioURLs lets ref_audio be an http(s) URL the server fetches
	// (off by default: a server that fetches what clients name can be
	// pointed at its own network). URLTimeout bounds a fetch (default 10 s).
	RefAudioURLs bool
	URLTimeout   time.Duration
}

// withDefaults returns c with zero fields set to their defaults.
func (c CloneConfig) withDefaults() CloneConfig {
	if c.MaxClipBytes == 0 {
		c.MaxClipBytes = 10 << 20
	}
	if c.MaxClipSeconds == 0 {
		c.MaxClipSeconds = 30
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = 64 << 20
	}
	if c.MaxEncodes == 0 {
		c.MaxEncodes = 1
	}
	if c.URLTimeout == 0 {
		c.URLTimeout = 10 * time.Second
	}
	return c
}

// Validate reports the first field with an impossible value.
func (c CloneConfig) Validate() error {
	switch {
	case c.MaxClipBytes < 0:
		return fmt.Errorf("serve: config Cloning.MaxClipBytes %d is negative", c.MaxClipBytes)
	case c.MaxClipSeconds < 0 || c.MaxClipSeconds != c.MaxClipSeconds:
		return fmt.Errorf("serve: config Cloning.MaxClipSeconds %g is negative or NaN", c.MaxClipSeconds)
	case c.CacheBytes < 0:
		return fmt.Errorf("serve: config Cloning.CacheBytes %d is negative", c.CacheBytes)
	case c.MaxEncodes < 0:
		return fmt.Errorf("serve: config Cloning.MaxEncodes %d is negative", c.MaxEncodes)
	case c.URLTimeout < 0:
		return fmt.Errorf("serve: config Cloning.URLTimeout %v is negative", c.URLTimeout)
	}
	return nil
}
