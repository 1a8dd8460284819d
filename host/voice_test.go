package host

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/speaker"
	"github.com/omni-tts/omni/voice"
)

// voiceClip returns n samples of a voiced-like test signal at rate.
func voiceClip(n, rate int) []float32 {
	v := make([]float32, n)
	for i := range v {
		t := float64(i) / float64(rate)
		v[i] = float32(0.3*math.Sin(2*math.Pi*140*t) + 0.1*math.Sin(2*math.Pi*420*t+1) + 0.05*math.Sin(2*math.Pi*1900*t))
	}
	return v
}

// TestVoicePrepareSynthTinyBase prepares voices on synth:tiny-base: the
// frame counts are ceil(24 kHz samples / 1920) (1 s → 13 frames; 0.5 s at
// 16 kHz → 12000 samples → 7 frames), the x-vector is the synthetic
// speaker encoder's (speaker.NewSynthetic of the tiny geometry with enc_dim
// 64 and the model's seed) on the same samples, x-vector-only mode keeps no
// codes, and the bounds hold at their worked values (1280 samples, the
// tiny geometry's 5 mel frames; 30 s).
func TestVoicePrepareSynthTinyBase(t *testing.T) {
	e, err := OpenVoiceEncoder("synth:tiny-base@5", VoiceOptions{Threads: 1, Precision: "fp32"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.MinSamples() != 1280 || e.Model().Hidden != 64 || len(e.Model().Digest) != 64 {
		t.Fatalf("min samples %d, model %+v", e.MinSamples(), e.Model())
	}
	clip := voiceClip(24000, 24000)
	v, err := e.Prepare("me", clip, 24000, " Hello there. ", false)
	if err != nil {
		t.Fatal(err)
	}
	if v.Frames() != 13 || v.RefText != "Hello there." || v.RefSeconds != 1 || !v.Model.Same(e.Model()) {
		t.Errorf("voice: %d frames, ref text %q, %v s, model %+v", v.Frames(), v.RefText, v.RefSeconds, v.Model)
	}
	cfg := speaker.TinyConfig()
	cfg.EncDim = 64
	b := simd.NewBackend(1)
	defer b.Close()
	ref, err := speaker.NewSynthetic(cfg, 5, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 64)
	if err := ref.Embed(want, clip); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if v.XVector[i] != want[i] {
			t.Fatalf("x-vector[%d] = %v, the synthetic speaker encoder gives %v", i, v.XVector[i], want[i])
		}
	}

	v16, err := e.Prepare("me16", voiceClip(8000, 16000), 16000, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if v16.InContext() || v16.RefCodes != nil || v16.RefText != "" || v16.RefSeconds != 0.5 {
		t.Errorf("x-vector only: %d codes, ref text %q, %v s", len(v16.RefCodes), v16.RefText, v16.RefSeconds)
	}
	v16c, err := e.Prepare("me16", voiceClip(8000, 16000), 16000, "hi", false)
	if err != nil {
		t.Fatal(err)
	}
	if v16c.Frames() != 7 {
		t.Errorf("0.5 s at 16 kHz: %d frames, want ceil(12000/1920) = 7", v16c.Frames())
	}

	if _, err := e.Prepare("short", clip[:1279], 24000, "", true); err == nil || !strings.Contains(err.Error(), "at least") {
		t.Errorf("1279 samples: %v", err)
	}
	if _, err := e.Prepare("short", clip[:1280], 24000, "", true); err != nil {
		t.Errorf("1280 samples: %v", err)
	}
	if _, err := e.Prepare("long", make([]float32, 30*8000+1), 8000, "", true); err == nil || !strings.Contains(err.Error(), "bound is 30 s") {
		t.Errorf("30 s + 1 sample: %v", err)
	}
	if _, err := e.Prepare("me", clip, 24000, "  ", false); err == nil || !strings.Contains(err.Error(), "transcript") {
		t.Errorf("in-context without text: %v", err)
	}
	if _, err := e.Prepare("../x", clip, 24000, "", true); !errors.Is(err, voice.ErrName) {
		t.Errorf("bad name: %v", err)
	}
	nan := append([]float32(nil), clip...)
	nan[100] = float32(math.NaN())
	if _, err := e.Prepare("me", nan, 24000, "", true); err == nil || !strings.Contains(err.Error(), "sample 100") {
		t.Errorf("NaN sample: %v", err)
	}
}

// TestVoiceModelIdentity checks the identities voices are bound to: a
// CustomVoice model is refused by name; a checkpoint's digest is that of
// its speaker-encoder weights, so a copy elsewhere matches, a changed
// weight does not, and the synthetic spec differs from its bf16 copy.
func TestVoiceModelIdentity(t *testing.T) {
	if _, err := VoiceModel("synth:tiny"); err == nil || !strings.Contains(err.Error(), "synth:tiny-base") {
		t.Errorf("synth:tiny: %v", err)
	}
	if _, err := OpenVoiceEncoder("synth:tiny", VoiceOptions{}); err == nil {
		t.Error("OpenVoiceEncoder took synth:tiny")
	}
	a, err := VoiceModel("synth:tiny-base")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := VoiceModel("synth:tiny-base@1")
	c, _ := VoiceModel("synth:tiny-base@2")
	if !a.Same(b) || a.Same(c) {
		t.Errorf("synth:tiny-base %v, @1 %v, @2 %v", a, b, c)
	}
	src, err := predictor.NewSynth("tiny-base", false, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir1, dir2 := t.TempDir(), t.TempDir()
	if err := predictor.WriteHF(src, dir1); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.json", "model.safetensors"} {
		b, err := os.ReadFile(filepath.Join(dir1, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir2, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m1, err := VoiceModel(dir1)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := VoiceModel(dir2)
	if err != nil {
		t.Fatal(err)
	}
	if !m1.Same(m2) || m1.Hidden != 64 || m1.Same(a) {
		t.Errorf("copies %v and %v, synth %v", m1, m2, a)
	}
	// flip a byte of a talker tensor: the identity stays; of a speaker
	// tensor: it changes
	path := filepath.Join(dir2, "model.safetensors")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint64(raw))
	var hdr map[string]struct {
		Offsets [2]int `json:"data_offsets"`
	}
	if err := json.Unmarshal(raw[8:8+hl], &hdr); err != nil {
		t.Fatal(err)
	}
	flip := func(name string) voice.Model {
		t.Helper()
		raw[8+hl+hdr[name].Offsets[0]] ^= 1
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := VoiceModel(dir2)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := flip("talker.codec_head.weight"); !m.Same(m1) {
		t.Error("a talker byte changed the speaker-encoder identity")
	}
	if m := flip("speaker_encoder.fc.bias"); m.Same(m1) {
		t.Error("a speaker-encoder byte left the identity unchanged")
	}
}

// TestVoicePrecision: bf16 encoders give an x-vector within a cosine of
// 0.999 of fp32's and the same number of codes; an unknown precision is
// refused by name.
func TestVoicePrecision(t *testing.T) {
	clip := voiceClip(24000, 24000)
	var xv [2][]float32
	for i, p := range []string{"fp32", "bf16"} {
		e, err := OpenVoiceEncoder("synth:tiny-base@5", VoiceOptions{Threads: 1, Precision: p})
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Prepare("me", clip, 24000, "Hello.", false)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		if v.Frames() != 13 {
			t.Errorf("%s: %d frames, want 13", p, v.Frames())
		}
		xv[i] = v.XVector
	}
	var dot, n0, n1 float64
	for i := range xv[0] {
		a, b := float64(xv[0][i]), float64(xv[1][i])
		dot, n0, n1 = dot+a*b, n0+a*a, n1+b*b
	}
	if c := dot / math.Sqrt(n0*n1); !(c > 0.999) {
		t.Errorf("bf16 x-vector cosine to fp32's %g, want > 0.999", c)
	}
	if _, err := OpenVoiceEncoder("synth:tiny-base", VoiceOptions{Precision: "int8"}); err == nil || !strings.Contains(err.Error(), `"int8"`) {
		t.Errorf("precision int8: %v, want a refusal naming it", err)
	}
}
