package speaker_test

import (
	"math"
	"strings"
	"testing"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/speaker"
)

// TestEmbedNoAllocs checks that a warm encoder embeds without allocating,
// at the length it was warmed with and at a shorter one.
func TestEmbedNoAllocs(t *testing.T) {
	b := simd.NewBackend(1)
	defer b.Close()
	enc, err := speaker.NewSynthetic(speaker.TinyConfig(), 3, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	x := make([]float32, 24000)
	for i := range x {
		x[i] = float32(0.3 * math.Sin(float64(i)*0.05))
	}
	dst := make([]float32, enc.Dim())
	if err := enc.Embed(dst, x); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{24000, 5000} {
		var err error
		a := testing.AllocsPerRun(3, func() { err = enc.Embed(dst, x[:n]) })
		if err != nil {
			t.Fatal(err)
		}
		if a != 0 {
			t.Errorf("Embed of %d samples allocates %v times, want 0", n, a)
		}
	}
}

func TestEmbedRefusals(t *testing.T) {
	b := simd.NewBackend(1)
	defer b.Close()
	enc, err := speaker.NewSynthetic(speaker.DefaultConfig(16), 3, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, 16)
	if err := enc.Embed(dst, make([]float32, 1279)); err == nil || !strings.Contains(err.Error(), "at least 1280 samples") {
		t.Fatalf("short clip: %v", err)
	}
	bad := make([]float32, 2000)
	bad[1234] = float32(math.Inf(-1))
	if err := enc.Embed(dst, bad); err == nil || !strings.Contains(err.Error(), "sample 1234 is -Inf") {
		t.Fatalf("infinite sample: %v", err)
	}
	if err := enc.Embed(make([]float32, 3), make([]float32, 2000)); err == nil {
		t.Fatal("wrong embedding buffer accepted")
	}
	enc.Close()
	if err := enc.Embed(dst, make([]float32, 2000)); err == nil {
		t.Fatal("closed encoder embedded")
	}
	for _, c := range []struct{ json, want string }{
		{`{"tts_model_type":"custom_voice","speaker_encoder_config":{"enc_dim":8}}`, "not a Base model"},
		{`{"tts_model_type":"base"}`, "no speaker_encoder_config"},
		{`{"speaker_encoder_config":{"enc_dim":0}}`, "enc_dim 0"},
		{`{"speaker_encoder_config":{"enc_dim":8,"mel_dim":80}}`, "mel_dim 80"},
		{`{"speaker_encoder_config":{"enc_dim":8,"enc_channels":[512,512,500,512,1536]}}`, "enc_channels[2]"},
		{`{"speaker_encoder_config":{"enc_dim":8,"enc_dilations":[1,2]}}`, "enc_dilations"},
		{`{"speaker_encoder_config":{"enc_dim":8,"enc_res2net_scale":7}}`, "multiple of enc_res2net_scale"},
	} {
		if _, err := speaker.ParseCheckpointConfig([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}
	c, err := speaker.ParseCheckpointConfig([]byte(`{"tts_model_type":"base","speaker_encoder_config":{"enc_dim":1024,"sample_rate":24000}}`))
	if err != nil || c.Channels[4] != 1536 || c.MinSamples() != 1280 || len(speaker.ExpectedTensors(&c)) != 76 {
		t.Fatalf("real config: %+v %v", c, err)
	}
}
