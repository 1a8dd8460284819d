package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/audio/compressed"
)

// MinClipSeconds is the shortest reference clip serve accepts: below it
// the speaker encoder has too few frames to pool.
const MinClipSeconds = 0.5

// silentPeak is the peak below which a clip is refused as silent (-60 dBFS).
const silentPeak = 1e-3

// resolveClone turns a Base model request's voice reference into the
// prepared voice it conditions on (p.Req.Clone): a library voice from the
// cache or the library, or the request's clip from the cache or encoded
// once (keyed by the clip's hash, its transcript and the mode). Nothing to
// do for other models.
func (s *Server) resolveClone(ctx context.Context, p *speechParams) error {
	c := p.Clone
	if c == nil {
		return nil
	}
	if c.Voice != "" {
		v, err := s.libraryVoice(ctx, c.Voice, c.VoiceField)
		if err != nil {
			return err
		}
		p.Req.Clone = v
		return nil
	}
	if c.URL != "" {
		clip, err := s.fetchClip(ctx, c.URL)
		if err != nil {
			return err
		}
		c.Clip, c.URL = clip, ""
	}
	key := clipKey(c.Clip, c.RefText, c.mode())
	v, err := s.voices.get(ctx, key, func() (*PreparedVoice, error) {
		return s.prepareClip(ctx, "ref_audio", "ref_audio", c.Clip, c.RefText, c.XVectorOnly)
	})
	if err != nil {
		return err
	}
	p.Req.Clone = v
	return nil
}

// libraryVoice returns the library voice name, from memory or read once
// from the library; an unknown name is a 400 naming field.
func (s *Server) libraryVoice(ctx context.Context, name, field string) (*PreparedVoice, error) {
	return s.voices.get(ctx, "voice:"+name, func() (*PreparedVoice, error) {
		v, err := s.cfg.Cloning.Voices.Load(name)
		var fe *FieldError
		switch {
		case errors.As(err, &fe):
			return nil, &FieldError{Field: field, Msg: fe.Msg}
		case errors.Is(err, ErrVoiceNotFound):
			return nil, &FieldError{Field: field, Msg: fmt.Sprintf("unknown voice %q (GET /v1/audio/voices lists the library; POST adds to it)", name)}
		case err != nil:
			return nil, fmt.Errorf("serve: load library voice %q: %w", name, err)
		case v == nil:
			return nil, fmt.Errorf("serve: library voice %q: the store returned none", name)
		}
		s.vm.loads.Inc()
		return v, nil
	})
}

// clipKey is the cache key of a request's clip: the SHA-256 of its bytes,
// its mode and its transcript.
func clipKey(clip []byte, refText, mode string) string {
	h := sha256.New()
	h.Write(clip)
	fmt.Fprintf(h, "\x00%s\x00%s", mode, refText)
	return "clip:" + hex.EncodeToString(h.Sum(nil))
}

// prepareClip decodes a clip file (WAV, FLAC or MP3, any rate, to 24 kHz
// mono), checks it (length bounds, not silent) and encodes it with the
// voice store, one of Cloning.MaxEncodes at a time. Every refusal of the
// clip is a *FieldError naming field; name names the clip in messages.
func (s *Server) prepareClip(ctx context.Context, field, name string, data []byte, refText string, xvOnly bool) (*PreparedVoice, error) {
	ref, err := compressed.LoadReference(name, data, s.cfg.Cloning.MaxClipSeconds)
	if err != nil {
		if errors.Is(err, audio.ErrFormat) {
			return nil, &FieldError{Field: field, Msg: strings.TrimPrefix(err.Error(), "audio: ")}
		}
		return nil, fmt.Errorf("serve: decode %s: %w", name, err)
	}
	clip := VoiceClip{Name: name, Samples: ref.Samples, RefText: refText, XVectorOnly: xvOnly}
	if err := checkClip(clip); err != nil {
		return nil, &FieldError{Field: field, Msg: fmt.Sprintf("%s (%s): %v", name, ref.Source.Format, err)}
	}
	select {
	case s.encodeSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.encodeSlots }()
	t0 := time.Now()
	v, err := s.cfg.Cloning.Voices.Prepare(ctx, clip)
	if err != nil {
		s.vm.encodeErrors.Inc()
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, &FieldError{Field: field, Msg: fe.Msg}
		}
		return nil, fmt.Errorf("serve: encode %s: %w", name, err)
	}
	if v == nil {
		return nil, fmt.Errorf("serve: encode %s: the store returned no voice", name)
	}
	s.vm.encodes.Inc()
	s.vm.encodeSeconds.Observe(time.Since(t0).Seconds())
	return v, nil
}

// checkClip refuses a clip too short to encode or silent.
func checkClip(c VoiceClip) error {
	if sec := c.Seconds(); sec < MinClipSeconds {
		return fmt.Errorf("%.2f s of audio, the shortest reference is %g s", sec, MinClipSeconds)
	}
	peak := float32(0)
	for _, x := range c.Samples {
		if a := float32(math.Abs(float64(x))); a > peak {
			peak = a
		}
	}
	if peak < silentPeak {
		return fmt.Errorf("silent (peak %.1f dBFS, below -60): record closer to the microphone", 20*math.Log10(float64(max(peak, 1e-12))))
	}
	return nil
}

// fetchClip fetches an http(s) ref_audio (Cloning.RefAudioURLs), bounded
// by Cloning.MaxClipBytes (413) and Cloning.URLTimeout; every failure is a
// 400 naming ref_audio.
func (s *Server) fetchClip(ctx context.Context, url string) ([]byte, error) {
	cc := s.cfg.Cloning
	ctx, cancel := context.WithTimeout(ctx, cc.URLTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf("bad URL: %v", err)}
	}
	resp, err := s.fetcher.Do(req)
	if err != nil {
		return nil, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf("fetch %s: %v", truncate(url, 80), errors.Unwrap(err))}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf("fetch %s: status %s", truncate(url, 80), resp.Status)}
	}
	if resp.ContentLength > cc.MaxClipBytes {
		return nil, &TooLongError{Field: "ref_audio", Len: int(resp.ContentLength), Limit: int(cc.MaxClipBytes), Unit: "bytes of audio"}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, cc.MaxClipBytes+1))
	if err != nil {
		return nil, &FieldError{Field: "ref_audio", Msg: fmt.Sprintf("fetch %s: %v", truncate(url, 80), err)}
	}
	if int64(len(b)) > cc.MaxClipBytes {
		return nil, &TooLongError{Field: "ref_audio", Len: len(b), Limit: int(cc.MaxClipBytes), Unit: "bytes of audio (or more)"}
	}
	return b, nil
}
