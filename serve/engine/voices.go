package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/voice"
)

// Voices is the serve.Voices of a Base model: clips are prepared by the
// model's voice encoder (host.VoiceEncoder: the x-vector and, in
// in-context mode, the reference codes) and kept in a voice.Library on
// disk (the directory `omni voice` uses, so voices added by either are
// the other's). A library voice prepared for another model is refused
// by name.
type Voices struct {
	enc *host.VoiceEncoder
	lib *voice.Library
}

// NewVoices returns the store over enc and lib; the caller closes enc
// after the server has drained.
func NewVoices(enc *host.VoiceEncoder, lib *voice.Library) (*Voices, error) {
	if enc == nil || lib == nil {
		return nil, errors.New("serve/engine: NewVoices needs a voice encoder and a library")
	}
	return &Voices{enc: enc, lib: lib}, nil
}

// clipName names a request's own clip to the encoder (a voice of no
// library name).
const clipName = "ref_audio"

// Prepare implements serve.Voices: clip (24 kHz mono) through the voice
// encoder, which runs one preparation at a time.
func (v *Voices) Prepare(ctx context.Context, clip serve.VoiceClip) (*serve.PreparedVoice, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vo, err := v.enc.Prepare(clipName, clip.Samples, serve.SampleRate, clip.RefText, clip.XVectorOnly)
	if err != nil {
		return nil, err
	}
	return prepared(vo), nil
}

// prepared describes vo to serve.
func prepared(vo *voice.Voice) *serve.PreparedVoice {
	mode := serve.VoiceModeXVector
	if vo.InContext() {
		mode = serve.VoiceModeInContext
	}
	const overhead = 512 // the structs and the strings' headers
	bytes := int64(4*len(vo.XVector)+4*len(vo.RefCodes)+len(vo.RefText)+len(vo.Consent)+len(vo.Name)) + overhead
	return &serve.PreparedVoice{Mode: mode, RefText: vo.RefText, Seconds: vo.RefSeconds, Bytes: bytes, Ref: vo}
}

// Save implements serve.Voices: a copy of p's voice named e.Name, with e's
// consent and creation time, added to the library (never replacing).
func (v *Voices) Save(e serve.VoiceEntry, p *serve.PreparedVoice) error {
	vo, ok := p.Ref.(*voice.Voice)
	if !ok {
		return fmt.Errorf("serve/engine: save voice %q: reference %T is not a *voice.Voice", e.Name, p.Ref)
	}
	c := *vo
	c.Name, c.Consent, c.Created = e.Name, e.Consent, e.Created
	if err := v.lib.Add(&c, false); err != nil {
		if errors.Is(err, voice.ErrExists) {
			return fmt.Errorf("%w: %w", serve.ErrVoiceExists, err)
		}
		if errors.Is(err, voice.ErrName) {
			return &serve.FieldError{Field: "name", Msg: err.Error()}
		}
		return err
	}
	return nil
}

// Load implements serve.Voices: the library's voice name, checked for
// this model.
func (v *Voices) Load(name string) (*serve.PreparedVoice, error) {
	vo, err := v.get(name)
	if err != nil {
		return nil, err
	}
	return prepared(vo), nil
}

// get reads and checks a library voice.
func (v *Voices) get(name string) (*voice.Voice, error) {
	vo, err := v.lib.Get(name)
	switch {
	case errors.Is(err, voice.ErrNotFound):
		return nil, fmt.Errorf("%w: %w", serve.ErrVoiceNotFound, err)
	case errors.Is(err, voice.ErrName):
		return nil, &serve.FieldError{Field: "voice", Msg: err.Error()}
	case err != nil:
		return nil, err
	}
	if err := vo.CheckModel(v.enc.Model()); err != nil {
		return nil, &serve.FieldError{Field: "voice", Msg: err.Error()}
	}
	return vo, nil
}

// List implements serve.Voices: every readable voice of the library
// prepared for this model (files that fail to load, or belong to another
// model, are left out).
func (v *Voices) List() ([]serve.VoiceEntry, error) {
	names, err := v.lib.List()
	if err != nil {
		return nil, err
	}
	out := make([]serve.VoiceEntry, 0, len(names))
	for _, n := range names {
		vo, err := v.get(n)
		if err != nil {
			continue
		}
		p := prepared(vo)
		out = append(out, serve.VoiceEntry{Name: n, Mode: p.Mode, Seconds: vo.RefSeconds, Created: vo.Created,
			Consent: vo.Consent, RefText: vo.RefText})
	}
	return out, nil
}

// Delete implements serve.Voices.
func (v *Voices) Delete(name string) error {
	err := v.lib.Remove(name)
	switch {
	case errors.Is(err, voice.ErrNotFound):
		return fmt.Errorf("%w: %w", serve.ErrVoiceNotFound, err)
	case errors.Is(err, voice.ErrName):
		return &serve.FieldError{Field: "name", Msg: err.Error()}
	}
	return err
}

// cloneInput sets in's voice reference from req.Clone (a voice this
// package's Voices prepared); in is unchanged when the request clones no
// voice.
func cloneInput(in core.TextInput, req serve.SpeechRequest) (core.TextInput, error) {
	if req.Clone == nil {
		return in, nil
	}
	vo, ok := req.Clone.Ref.(*voice.Voice)
	if !ok {
		return in, fmt.Errorf("serve/engine: the request's voice reference is a %T, not a *voice.Voice", req.Clone.Ref)
	}
	return vo.TextInput(in), nil
}
