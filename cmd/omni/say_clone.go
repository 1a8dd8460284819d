package main

import (
	"fmt"
	"strings"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/voice"
)

// cloneFlags are omni say's voice-cloning flags (Base models): a library
// voice, or a reference clip prepared for this one request.
type cloneFlags struct {
	voiceDirFlag
	Voice         string  `help:"Speak in a voice of the library (omni voice add); Base models."`
	RefAudio      string  `name:"ref-audio" help:"Speak in the voice of this reference clip (WAV, FLAC, MP3), prepared for this request only; Base models."`
	RefText       string  `name:"ref-text" help:"The --ref-audio clip's transcript: in-context cloning, the default mode, needs it."`
	XVectorOnly   bool    `name:"x-vector-only" help:"With --ref-audio: use the speaker embedding only (no transcript needed)."`
	MaxRefSeconds float64 `name:"max-ref-seconds" default:"30" help:"Refuse a --ref-audio clip longer than this many seconds (${default})."`
}

// defaultModel is --model's default (a CustomVoice model, which cannot
// clone): say with --voice and no other --model speaks on the voice's own
// model, with --ref-audio on defaultModel's Base variant (cloneModel).
const defaultModel = "synth:0.6b"

// libraryVoice reads the --voice voice from the library: nil without
// --voice. say reads it once and hands it to cloneModel and prepared.
func (f *cloneFlags) libraryVoice() (*voice.Voice, error) {
	if f.Voice == "" {
		return nil, nil
	}
	lib, err := f.library()
	if err != nil {
		return nil, err
	}
	v, err := lib.Get(f.Voice)
	if err != nil {
		return nil, fmt.Errorf("say: --voice: %w", err)
	}
	return v, nil
}

// cloneModel returns the model a cloning say runs on: model as given, or
// where it is the default (which is not a Base model), the library voice
// lv's own model (the spec it was prepared with) or, for --ref-audio, the
// default's Base variant.
func (f *cloneFlags) cloneModel(model string, lv *voice.Voice) (string, error) {
	if model != defaultModel {
		return model, nil
	}
	if f.RefAudio != "" {
		return defaultModel + "-base", nil
	}
	if lv.Model.Spec == "" {
		return "", fmt.Errorf("say: --voice %s records no model spec: give --model", f.Voice)
	}
	return lv.Model.Spec, nil
}

// cloning reports whether the flags ask for a cloned voice.
func (f *cloneFlags) cloning() bool { return f.Voice != "" || f.RefAudio != "" }

// check refuses flag combinations that cannot be meant, before anything
// is loaded.
func (f *cloneFlags) check() error {
	switch {
	case f.Voice != "" && f.RefAudio != "":
		return usageErrorf("say: give --voice NAME or --ref-audio CLIP, not both")
	case f.RefAudio == "" && (f.RefText != "" || f.XVectorOnly):
		return usageErrorf("say: --ref-text and --x-vector-only go with --ref-audio (a library voice keeps its own)")
	case f.RefAudio != "" && !f.XVectorOnly && strings.TrimSpace(f.RefText) == "":
		return usageErrorf("say: in-context cloning (the default) needs the clip's transcript: give --ref-text \"…\", or --x-vector-only for the speaker embedding alone")
	case f.RefAudio != "" && !(f.MaxRefSeconds > 0 && f.MaxRefSeconds <= voice.MaxSeconds):
		return usageErrorf("say: --max-ref-seconds %v outside (0, %d]", f.MaxRefSeconds, voice.MaxSeconds)
	}
	if f.Voice != "" {
		if err := voice.ValidName(f.Voice); err != nil {
			return usageErrorf("say: --voice: %v", err)
		}
	}
	return nil
}

// prepared returns the voice the flags name for model: the library voice
// lv (libraryVoice), refused when it was prepared for another model, or
// the --ref-audio clip prepared now on threads kernel threads.
func (f *cloneFlags) prepared(model string, lv *voice.Voice, threads int) (*voice.Voice, error) {
	if f.Voice != "" {
		m, err := host.VoiceModel(model)
		if err != nil {
			return nil, fmt.Errorf("say: --voice %s: %w", f.Voice, err)
		}
		if err := lv.CheckModel(m); err != nil {
			return nil, fmt.Errorf("say: %w", err)
		}
		return lv, nil
	}
	enc, err := host.OpenVoiceEncoder(model, host.VoiceOptions{Threads: threads, MaxSeconds: f.MaxRefSeconds})
	if err != nil {
		return nil, fmt.Errorf("say: --ref-audio: %w", err)
	}
	defer enc.Close()
	v, err := enc.PrepareFile("ref-audio", f.RefAudio, f.RefText, f.XVectorOnly)
	if err != nil {
		return nil, fmt.Errorf("say: --ref-audio: %w", err)
	}
	return v, nil
}

// sayInput is the text input of text under the request flags and, when
// set, the cloned voice v.
func (c *sayCmd) sayInput(text string, v *voice.Voice) core.TextInput {
	in := c.textInput(text)
	if v != nil {
		in = v.TextInput(in)
	}
	return in
}
