package voice

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/omni-tts/omni/core"
)

// Limits of a voice, checked by Validate and on load.
const (
	// Codebooks is the number of codes per reference frame (12.5 Hz).
	Codebooks = 16
	// CodebookSize bounds every code: codes lie in [0, CodebookSize).
	CodebookSize = 2048
	// MaxDims bounds the x-vector's length (the talker's hidden size).
	MaxDims = 1 << 14
	// MaxFrames bounds the reference frames (10 minutes at 12.5 Hz).
	MaxFrames = 7500
	// MaxTextBytes bounds the reference transcript and the consent text.
	MaxTextBytes = 16 << 10
	// MaxSeconds bounds the recorded reference duration.
	MaxSeconds = 3600
	// maxAbs bounds an x-vector value's magnitude: beyond it the file is
	// not an embedding.
	maxAbs = 1e6
)

// Errors wrapped by the library and the decoder.
var (
	// ErrCorrupt is wrapped by every refusal of a malformed voice file.
	ErrCorrupt = errors.New("voice: corrupt voice file")
	// ErrName is wrapped when a voice name is not allowed.
	ErrName = errors.New("voice: bad voice name")
	// ErrNotFound is wrapped when the library has no voice of a name.
	ErrNotFound = errors.New("voice: no such voice")
	// ErrExists is wrapped when Add would replace a voice unasked.
	ErrExists = errors.New("voice: voice exists")
	// ErrModel is wrapped when a voice was prepared for another model.
	ErrModel = errors.New("voice: wrong model")
)

// Model identifies the model a voice was prepared for: its x-vector is a
// row of that model's talker and its codes are that model's codec's.
type Model struct {
	// Hidden is the talker's hidden size, the x-vector's length.
	Hidden int `json:"hidden"`
	// Digest is a lowercase hex SHA-256 of what made the voice: the speaker
	// encoder's weights of a checkpoint, or the spec of a synthetic model
	// (host.VoiceModel computes it).
	Digest string `json:"digest"`
	// Spec is the model spec the voice was prepared with, for messages.
	Spec string `json:"spec"`
}

// Same reports whether m and o are the same model (hidden size and digest;
// the spec is informational: the same weights under two paths match).
func (m Model) Same(o Model) bool { return m.Hidden == o.Hidden && m.Digest == o.Digest }

// Voice is a prepared voice reference.
type Voice struct {
	Name  string // the library name, ValidName
	Model Model  // the model it was prepared for
	// XVector is the speaker encoder's embedding, Model.Hidden values.
	XVector []float32
	// RefCodes are the reference's codes, frame-major R×Codebooks, in
	// in-context mode; nil in x-vector-only mode.
	RefCodes []int32
	// RefText is the reference transcript (in-context mode; required there).
	RefText string
	// RefSeconds is the reference clip's duration.
	RefSeconds float64
	// Consent is the consent statement recorded with the voice, if any.
	Consent string
	// Created is when the voice was prepared (UTC, whole seconds in files).
	Created time.Time
}

// ValidName checks a voice name: 1 to 64 of A-Z a-z 0-9 _ . - , not
// starting with a dot (the library's temporary files do). Errors wrap
// ErrName and quote the name.
func ValidName(name string) error {
	ok := len(name) >= 1 && len(name) <= 64 && name[0] != '.'
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
	}
	if !ok {
		return fmt.Errorf("%w %q: use 1 to 64 letters, digits, '_', '.' or '-', not starting with '.'", ErrName, name)
	}
	return nil
}

// InContext reports whether v is an in-context voice (it carries codes).
func (v *Voice) InContext() bool { return len(v.RefCodes) > 0 }

// Frames returns the number of reference frames (0 in x-vector-only mode).
func (v *Voice) Frames() int { return len(v.RefCodes) / Codebooks }

// Clone returns the voice as a request's clone reference: the x-vector and,
// in in-context mode, the codes. RefTextIDs are left for the tokenizer: put
// v.RefText in core.TextInput.RefText (RefText does). The slices are v's:
// neither v nor the request may modify them.
func (v *Voice) Clone() *core.Clone {
	c := &core.Clone{XVector: v.XVector}
	if v.InContext() {
		c.RefCodes = v.RefCodes
	}
	return c
}

// TextInput sets in's Clone and RefText from v (RefText only in
// in-context mode) and returns it.
func (v *Voice) TextInput(in core.TextInput) core.TextInput {
	in.Clone, in.RefText = v.Clone(), ""
	if v.InContext() {
		in.RefText = v.RefText
	}
	return in
}

// CheckModel refuses v on model m unless it was prepared for it (Same);
// the error wraps ErrModel and names the voice and both models.
func (v *Voice) CheckModel(m Model) error {
	if v.Model.Same(m) {
		return nil
	}
	return fmt.Errorf("%w: voice %q was prepared for %s (hidden %d, digest %.12s), not for %s (hidden %d, digest %.12s): prepare it again for this model (omni voice add --model %s)",
		ErrModel, v.Name, orUnknown(v.Model.Spec), v.Model.Hidden, v.Model.Digest, orUnknown(m.Spec), m.Hidden, m.Digest, orUnknown(m.Spec))
}

func orUnknown(s string) string {
	if s == "" {
		return "an unnamed model"
	}
	return s
}

// Validate checks every field against the limits: a valid name, a model
// of a positive hidden size and a 64-hex-digit digest, an x-vector of
// Model.Hidden finite values, whole frames of codes in [0, CodebookSize),
// a transcript in in-context mode, texts of valid UTF-8 within
// MaxTextBytes, a duration in [0, MaxSeconds]. The error names the field.
func (v *Voice) Validate() error {
	if err := ValidName(v.Name); err != nil {
		return err
	}
	if v.Model.Hidden < 1 || v.Model.Hidden > MaxDims {
		return fmt.Errorf("model.hidden %d outside [1, %d]", v.Model.Hidden, MaxDims)
	}
	if !isHexDigest(v.Model.Digest) {
		return fmt.Errorf("model.digest %q is not 64 lowercase hex digits", v.Model.Digest)
	}
	if len(v.XVector) != v.Model.Hidden {
		return fmt.Errorf("x-vector of %d values, model.hidden is %d", len(v.XVector), v.Model.Hidden)
	}
	for i, x := range v.XVector {
		if !(math.Abs(float64(x)) <= maxAbs) {
			return fmt.Errorf("x-vector[%d] = %v is not a finite value within ±%g", i, x, float64(maxAbs))
		}
	}
	if len(v.RefCodes)%Codebooks != 0 {
		return fmt.Errorf("%d reference codes: not whole frames of %d", len(v.RefCodes), Codebooks)
	}
	if f := v.Frames(); f > MaxFrames {
		return fmt.Errorf("%d reference frames, at most %d", f, MaxFrames)
	}
	for i, c := range v.RefCodes {
		if c < 0 || c >= CodebookSize {
			return fmt.Errorf("reference code [frame %d, codebook %d] = %d outside [0, %d)", i/Codebooks, i%Codebooks, c, CodebookSize)
		}
	}
	if v.InContext() && v.RefText == "" {
		return fmt.Errorf("in-context voice (%d frames) without a reference text", v.Frames())
	}
	for _, f := range []struct{ name, s string }{{"model.spec", v.Model.Spec}, {"ref_text", v.RefText}, {"consent", v.Consent}} {
		if len(f.s) > MaxTextBytes {
			return fmt.Errorf("%s of %d bytes, at most %d", f.name, len(f.s), MaxTextBytes)
		}
		if !utf8.ValidString(f.s) {
			return fmt.Errorf("%s is not valid UTF-8", f.name)
		}
	}
	if !(v.RefSeconds >= 0 && v.RefSeconds <= MaxSeconds) {
		return fmt.Errorf("ref_seconds %v outside [0, %d]", v.RefSeconds, MaxSeconds)
	}
	return nil
}

// isHexDigest reports whether s is 64 lowercase hex digits.
func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
