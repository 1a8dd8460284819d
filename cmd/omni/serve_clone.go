package main

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
)

// cloneServeFlags are "omni serve"'s voice-cloning flags (Base models:
// ref_audio in speech requests, the voice library under /v1/audio/voices).
type cloneServeFlags struct {
	voiceDirFlag            // --voice-dir: the library POST /v1/audio/voices adds to, omni voice's
	VoiceCacheBytes int64   `name:"voice-cache-bytes" default:"67108864" help:"Prepared voices kept in memory, least recently used out first, in bytes (${default})."`
	MaxClipBytes    int64   `name:"max-clip-bytes" default:"10485760" help:"Largest reference clip file (an upload, or ref_audio decoded); larger is a 413 (${default})."`
	MaxClipSeconds  float64 `name:"max-clip-seconds" default:"30" help:"Longest reference clip in seconds, 0.5..600; longer is a 400 (${default})."`
	RefAudioURLs    bool    `name:"ref-audio-urls" help:"Let ref_audio be an http(s) URL the server fetches (off: a server that fetches what clients name can be pointed at its own network)."`
	FakeBase        bool    `name:"fake-base" help:"--fake: serve a Base model (cloning with an in-memory library that encodes nothing)."`
}

// maxServeClipBytes bounds --max-clip-bytes.
const maxServeClipBytes = 1 << 30

// checkCloneFlags refuses the cloning flags out of their bounds, naming
// the flag, and --fake-base without --fake.
func (f *cloneServeFlags) checkCloneFlags(fake bool) error {
	switch {
	case f.FakeBase && !fake:
		return usageErrorf("serve: --fake-base needs --fake")
	case f.VoiceCacheBytes < 1:
		return usageErrorf("serve: --voice-cache-bytes %d, want at least 1", f.VoiceCacheBytes)
	case f.MaxClipBytes < 1 || f.MaxClipBytes > maxServeClipBytes:
		return usageErrorf("serve: --max-clip-bytes %d outside [1, %d]", f.MaxClipBytes, maxServeClipBytes)
	case !(f.MaxClipSeconds >= serve.MinClipSeconds && f.MaxClipSeconds <= 600) || math.IsNaN(f.MaxClipSeconds):
		return usageErrorf("serve: --max-clip-seconds %g outside [%g, 600]", f.MaxClipSeconds, serve.MinClipSeconds)
	}
	return nil
}

// cloneConfig is serve's cloning configuration under the flags, voices
// the store (nil for a model that is not Base).
func (f *cloneServeFlags) cloneConfig(voices serve.Voices) serve.CloneConfig {
	return serve.CloneConfig{Voices: voices, MaxClipBytes: f.MaxClipBytes, MaxClipSeconds: f.MaxClipSeconds,
		CacheBytes: f.VoiceCacheBytes, RefAudioURLs: f.RefAudioURLs}
}

// openVoices opens the voice store of a Base model spec: its voice
// encoder (one kernel thread: encodings run beside the engine) and the
// library; close frees the encoder.
func (f *cloneServeFlags) openVoices(spec string) (serve.Voices, func(), error) {
	enc, err := host.OpenVoiceEncoder(spec, host.VoiceOptions{Threads: 1, MaxSeconds: f.MaxClipSeconds})
	if err != nil {
		return nil, nil, fmt.Errorf("serve: voice encoder of %s: %w", spec, err)
	}
	lib, err := f.library()
	if err != nil {
		enc.Close()
		return nil, nil, fmt.Errorf("serve: voice library: %w", err)
	}
	v, err := engine.NewVoices(enc, lib)
	if err != nil {
		enc.Close()
		return nil, nil, err
	}
	return v, func() { enc.Close() }, nil
}
