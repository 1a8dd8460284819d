package host

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/audio/compressed"
	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/safetensors"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/speaker"
	"github.com/omni-tts/omni/voice"
)

// VoiceOptions configure OpenVoiceEncoder.
type VoiceOptions struct {
	// Threads is the kernel pool's size (0: 1).
	Threads int
	// MaxSeconds bounds a reference clip (0: audio.DefaultMaxSeconds, 30 s);
	// a longer clip is refused with its length.
	MaxSeconds float64
	// Precision of both encoders' weights: "fp32", "bf16", or "" / "auto"
	// for bf16 where the kernels compute in bf16 (AVX-512 BF16: twice as
	// fast, the x-vector within a cosine of 0.99999 of fp32's) and fp32
	// elsewhere, as the codec decoder's auto precision.
	Precision string
}

// voicePrecision resolves VoiceOptions.Precision.
func voicePrecision(p string) (string, error) {
	switch p {
	case "", "auto":
		return simd.DefaultEncoderPrecision(), nil
	case "fp32", "bf16":
		return p, nil
	}
	return "", fmt.Errorf("host: voice encoder precision %q unknown (want auto, fp32 or bf16)", p)
}

// VoiceEncoder prepares voices for one Base model: its speaker encoder
// (the x-vector) and its codec encoder (the reference codes), natively on
// a kernel pool of its own. Its methods may be called from several
// goroutines: preparations run one at a time.
type VoiceEncoder struct {
	mu         sync.Mutex
	b          *simd.Backend
	spk        *speaker.Encoder
	enc        *codec.Encoder
	model      voice.Model
	maxSeconds float64
	minSamples int                      // the speaker encoder's minimum, 24 kHz samples
	dim        int                      // the x-vector's length
	codes      [][codec.Codebooks]int32 // reused between preparations
}

// OpenVoiceEncoder opens the encoders of a Base model spec (as
// ParseModelSpec takes it: a checkpoint directory, a pulled hub id
// ORG/NAME[@REV], or synth:SIZE-base[+…][@SEED]): the speaker encoder from
// the checkpoint's config.json and model.safetensors (speaker.Load) or the
// synthetic one of the same geometry and seed (speaker.NewSynthetic, what
// the synthetic model's speaker_encoder.* tensors hold), and the codec
// encoder (OpenCodecEncoder), at o.Precision. A model that is not a Base
// model is refused by name.
func OpenVoiceEncoder(spec string, o VoiceOptions) (*VoiceEncoder, error) {
	prec, err := voicePrecision(o.Precision)
	if err != nil {
		return nil, err
	}
	m, err := VoiceModel(spec)
	if err != nil {
		return nil, err
	}
	files, err := ResolveModel(spec)
	if err != nil {
		return nil, err
	}
	e := &VoiceEncoder{model: m, maxSeconds: o.MaxSeconds, b: simd.NewBackend(max(1, o.Threads))}
	if e.maxSeconds <= 0 || math.IsNaN(e.maxSeconds) {
		e.maxSeconds = audio.DefaultMaxSeconds
	}
	if files.Synth != nil {
		cfg, _ := predictor.SynthConfig(files.Synth.Size) // checked by VoiceModel
		e.spk, err = speaker.NewSynthetic(*cfg.SpeakerEncoder, files.Synth.Seed, e.b, prec)
	} else {
		e.spk, err = speaker.Load(files.Weights, e.b, prec)
	}
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("host: speaker encoder of %s: %w", spec, err)
	}
	if e.enc, err = OpenCodecEncoder(spec, e.b, prec); err != nil {
		e.Close()
		return nil, err
	}
	cfg := e.spk.Config()
	e.minSamples, e.dim = cfg.MinSamples(), e.spk.Dim()
	if e.dim != m.Hidden {
		e.Close()
		return nil, fmt.Errorf("host: model %s: the speaker encoder makes %d values, the talker's hidden size is %d", spec, e.dim, m.Hidden)
	}
	return e, nil
}

// VoiceModel returns the identity voices prepared for spec carry (see
// voice.Model), without opening the encoders: for synth:SIZE-base the
// talker's hidden size and a digest of the canonical spec; for a
// checkpoint the speaker encoder's enc_dim and a SHA-256 of its
// speaker_encoder.* tensors (names, dtypes, shapes and stored bytes, about
// 18 MB for the 0.6B), so the same weights under any path or hub id match
// and any other speaker encoder does not. A model that is not a Base model
// is refused by name.
func VoiceModel(spec string) (voice.Model, error) {
	files, err := ResolveModel(spec)
	if err != nil {
		return voice.Model{}, err
	}
	if s := files.Synth; s != nil {
		if _, base := predictor.SynthBaseSize(s.Size); !base {
			return voice.Model{}, fmt.Errorf("host: model %s is not a Base model (voice cloning needs one: synth:%s-base)", spec, s.Size)
		}
		cfg, err := predictor.SynthConfig(s.Size)
		if err != nil {
			return voice.Model{}, err
		}
		sum := sha256.Sum256([]byte("omni synthetic model " + s.String()))
		return voice.Model{Hidden: cfg.Talker.Hidden, Digest: hex.EncodeToString(sum[:]), Spec: spec}, nil
	}
	cfg, err := speaker.LoadConfig(files.Weights)
	if err != nil {
		return voice.Model{}, fmt.Errorf("host: model %s: %w", spec, err)
	}
	file := filepath.Join(files.Weights, predictor.WeightsFile)
	f, err := safetensors.Open(file)
	if err != nil {
		return voice.Model{}, fmt.Errorf("host: model %s: %w", spec, err)
	}
	defer f.Close()
	h := sha256.New()
	var buf []byte
	for _, t := range speaker.ExpectedTensors(&cfg) {
		info, ok := f.Info(t.Name)
		if !ok {
			return voice.Model{}, fmt.Errorf("host: model %s: %s: tensor %s missing (not a Base checkpoint?)", spec, file, t.Name)
		}
		if int64(cap(buf)) < info.Size {
			buf = make([]byte, info.Size)
		}
		buf = buf[:info.Size]
		if err := f.ReadRaw(t.Name, buf); err != nil {
			return voice.Model{}, fmt.Errorf("host: model %s: %w", spec, err)
		}
		fmt.Fprintf(h, "%s %s %v %d\n", info.Name, info.DType, info.Shape, info.Size)
		h.Write(buf)
	}
	return voice.Model{Hidden: cfg.EncDim, Digest: hex.EncodeToString(h.Sum(nil)), Spec: spec}, nil
}

// Model returns the identity of the voices e prepares.
func (e *VoiceEncoder) Model() voice.Model { return e.model }

// MinSamples returns the fewest 24 kHz samples a reference may have (the
// speaker encoder's minimum: 1280, about 53 ms, for the real geometry).
func (e *VoiceEncoder) MinSamples() int { return e.minSamples }

// MaxSeconds returns the longest reference e accepts.
func (e *VoiceEncoder) MaxSeconds() float64 { return e.maxSeconds }

// Prepare makes voice name from a reference clip: samples (mono, all
// finite) at sampleRate are resampled to 24 kHz (audio.NewResampler; a clip
// longer than MaxSeconds or shorter than MinSamples after resampling is
// refused with its length), embedded by the speaker encoder (the x-vector)
// and, unless xVectorOnly, encoded by the codec encoder (the reference
// codes, 12.5 frames a second). In-context mode (xVectorOnly false, the
// upstream default) needs refText, the clip's transcript; in x-vector-only
// mode refText is ignored. The voice's Created is now; Consent is left for
// the caller. Errors name the voice.
func (e *VoiceEncoder) Prepare(name string, samples []float32, sampleRate int, refText string, xVectorOnly bool) (*voice.Voice, error) {
	if err := voice.ValidName(name); err != nil {
		return nil, err
	}
	refText = strings.TrimSpace(refText)
	if !xVectorOnly && refText == "" {
		return nil, fmt.Errorf("host: voice %q: in-context cloning (the default) needs the reference clip's transcript (ref text); give it, or ask for x-vector-only mode", name)
	}
	if xVectorOnly {
		refText = ""
	}
	if sampleRate < audio.MinRate || sampleRate > audio.MaxRate {
		return nil, fmt.Errorf("host: voice %q: sample rate %d outside [%d, %d]", name, sampleRate, audio.MinRate, audio.MaxRate)
	}
	secs := float64(len(samples)) / float64(sampleRate)
	if secs > e.maxSeconds {
		return nil, fmt.Errorf("host: voice %q: the reference is %.2f s long, the bound is %g s (cut the clip or raise the bound)", name, secs, e.maxSeconds)
	}
	for i, x := range samples {
		if x-x != 0 {
			return nil, fmt.Errorf("host: voice %q: reference sample %d is %v", name, i, x)
		}
	}
	pcm := samples
	if sampleRate != speaker.SampleRate {
		r, err := audio.NewResampler(sampleRate, speaker.SampleRate)
		if err != nil {
			return nil, fmt.Errorf("host: voice %q: %w", name, err)
		}
		pcm = r.Resample(nil, samples)
	}
	if n := e.MinSamples(); len(pcm) < n {
		return nil, fmt.Errorf("host: voice %q: the reference is %.3f s long, the speaker encoder needs at least %.3f s (%d samples at 24 kHz)", name, secs, float64(n)/speaker.SampleRate, n)
	}
	v := &voice.Voice{Name: name, Model: e.model, RefText: refText, RefSeconds: secs, Created: time.Now().UTC(),
		XVector: make([]float32, e.dim)}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.spk == nil || e.enc == nil {
		return nil, fmt.Errorf("host: voice %q: the voice encoder is closed", name)
	}
	if err := e.spk.Embed(v.XVector, pcm); err != nil {
		return nil, fmt.Errorf("host: voice %q: %w", name, err)
	}
	if !xVectorOnly {
		codes, err := e.enc.AppendEncode(e.codes[:0], pcm)
		if err != nil {
			return nil, fmt.Errorf("host: voice %q: %w", name, err)
		}
		e.codes = codes
		v.RefCodes = make([]int32, 0, len(codes)*codec.Codebooks)
		for _, f := range codes {
			v.RefCodes = append(v.RefCodes, f[:]...)
		}
	}
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("host: voice %q: BUG: %w", name, err)
	}
	return v, nil
}

// PrepareClip is Prepare on an audio file held in data (DecodeClip: WAV,
// FLAC or MP3, any rate, channels averaged); file names it in errors.
func (e *VoiceEncoder) PrepareClip(name, file string, data []byte, refText string, xVectorOnly bool) (*voice.Voice, error) {
	samples, rate, err := DecodeClip(file, data)
	if err != nil {
		return nil, err
	}
	return e.Prepare(name, samples, rate, refText, xVectorOnly)
}

// PrepareFile is PrepareClip on the file at path (read up to 256 MB).
func (e *VoiceEncoder) PrepareFile(name, path, refText string, xVectorOnly bool) (*voice.Voice, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("host: voice %q: %w", name, err)
	}
	if st.Size() > maxClipFile {
		return nil, fmt.Errorf("host: voice %q: %s is %d bytes, a reference clip file has at most %d", name, path, st.Size(), maxClipFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host: voice %q: %w", name, err)
	}
	return e.PrepareClip(name, path, data, refText, xVectorOnly)
}

// maxClipFile bounds a reference clip file PrepareFile reads.
const maxClipFile = 256 << 20

// DecodeClip decodes an audio file held in data (WAV, FLAC or MP3, told
// apart by their leading bytes; audio/compressed) into mono samples at the
// file's own rate; file names it in errors, which wrap audio.ErrFormat for
// a malformed or unsupported file.
func DecodeClip(file string, data []byte) (samples []float32, rate int, err error) {
	d, err := compressed.Decode(file, data)
	if err != nil {
		return nil, 0, err
	}
	return d.Samples, d.Rate, nil
}

// Close frees the encoders and the kernel pool; Prepare fails afterwards.
func (e *VoiceEncoder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.spk != nil {
		e.spk.Close()
		e.spk = nil
	}
	if e.enc != nil {
		e.enc.Close()
		e.enc = nil
	}
	if e.b != nil {
		e.b.Close()
		e.b = nil
	}
	return nil
}
