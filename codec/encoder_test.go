package codec_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

func tinyEncoder(t *testing.T) *codec.Encoder {
	t.Helper()
	b := simd.NewBackend(1)
	t.Cleanup(b.Close)
	e, err := codec.NewSyntheticEncoder(codec.TinyEncoderConfig(), 7, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func noise(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * 0.3)
	}
	return v
}

// TestEncoderFrameCount checks ceil(samples / samples-per-frame) frames of
// in-range codes for lengths around frame and chunk boundaries.
func TestEncoderFrameCount(t *testing.T) {
	e := tinyEncoder(t)
	spf := e.SamplesPerFrame()
	if spf != 12 {
		t.Fatalf("SamplesPerFrame = %d, want 12 (strides 3·2, ×2 downsample)", spf)
	}
	r := rand.New(rand.NewPCG(1, 2))
	chunk := codec.EncodeChunkFrames * spf
	for _, n := range []int{1, 11, 12, 13, 97, chunk - 1, chunk, chunk + 1, 2*chunk + 5} {
		codes, err := e.AppendEncode(nil, noise(r, n))
		if err != nil {
			t.Fatalf("%d samples: %v", n, err)
		}
		if want := (n + spf - 1) / spf; len(codes) != want {
			t.Errorf("%d samples: %d frames, want %d", n, len(codes), want)
		}
		for i, f := range codes {
			for k, c := range f {
				if c < 0 || int(c) >= codec.TinyEncoderConfig().CodebookSize {
					t.Fatalf("%d samples: frame %d codebook %d = %d out of range", n, i, k, c)
				}
			}
		}
	}
}

// TestEncoderAppends checks that codes are appended after dst's frames and
// that a second call on the same clip gives the same codes (no state leaks
// from one call into the next).
func TestEncoderAppends(t *testing.T) {
	e := tinyEncoder(t)
	r := rand.New(rand.NewPCG(3, 4))
	clip := noise(r, 1000)
	a, err := e.AppendEncode(nil, clip)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AppendEncode(nil, noise(r, 333)); err != nil {
		t.Fatal(err)
	}
	pre := [][codec.Codebooks]int32{{1, 2, 3}}
	b, err := e.AppendEncode(pre, clip)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1+len(a) || b[0] != pre[0] {
		t.Fatalf("AppendEncode kept %d frames (first %v), want %d with the first unchanged", len(b), b[0], 1+len(a))
	}
	for i := range a {
		if a[i] != b[1+i] {
			t.Fatalf("frame %d: second encode gives %v, first %v", i, b[1+i], a[i])
		}
	}
}

// TestEncoderRefuses checks the errors for bad calls.
func TestEncoderRefuses(t *testing.T) {
	e := tinyEncoder(t)
	for _, c := range []struct {
		name string
		pcm  []float32
		want string
	}{
		{"empty", nil, "no samples"},
		{"nan", []float32{0, float32(math.NaN())}, "sample 1"},
		{"inf", []float32{float32(math.Inf(-1))}, "sample 0"},
	} {
		_, err := e.AppendEncode(nil, c.pcm)
		if err == nil || !errors.Is(err, codec.ErrArgs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrArgs mentioning %q", c.name, err, c.want)
		}
	}
	e.Close()
	if _, err := e.AppendEncode(nil, []float32{0}); !errors.Is(err, codec.ErrArgs) {
		t.Errorf("closed encoder: err = %v, want ErrArgs", err)
	}
}

// TestEncoderNoAllocs checks that a warm encoder appending into room
// allocates nothing.
func TestEncoderNoAllocs(t *testing.T) {
	e := tinyEncoder(t)
	clip := noise(rand.New(rand.NewPCG(5, 6)), 1234)
	dst := make([][codec.Codebooks]int32, 0, 200)
	if _, err := e.AppendEncode(dst, clip); err != nil {
		t.Fatal(err)
	}
	var err error
	n := testing.AllocsPerRun(5, func() {
		if _, e2 := e.AppendEncode(dst, clip); e2 != nil {
			err = e2
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("AppendEncode allocates %v times per call, want 0", n)
	}
}

// TestEncoderConfigRoundTrip checks that the JSON section of a config
// parses back to it, and that unsupported structure options are refused
// by name.
func TestEncoderConfigRoundTrip(t *testing.T) {
	for _, c := range []codec.EncoderConfig{codec.RealEncoderConfig(), codec.TinyEncoderConfig()} {
		js := encoderJSON(t, c.JSONSection(), nil)
		got, err := codec.ParseEncoderConfig(js)
		if err != nil {
			t.Fatal(err)
		}
		if got.SamplesPerFrame() != c.SamplesPerFrame() || got.Hidden != c.Hidden || got.HeadDim != c.HeadDim ||
			got.SlidingWindow != c.SlidingWindow || got.CodebookDim != c.CodebookDim || got.Quantizers != c.Quantizers {
			t.Errorf("round trip: got %+v, want %+v", got, c)
		}
	}
	if got := codec.RealEncoderConfig(); got.SamplesPerFrame() != 1920 {
		t.Errorf("real SamplesPerFrame = %d, want 1920", got.SamplesPerFrame())
	}
	for field, v := range map[string]any{
		"pad_mode": "replicate", "use_causal_conv": false, "hidden_act": "relu", "num_semantic_quantizers": 2,
		"num_key_value_heads": 4, "vector_quantization_hidden_dimension": 128, "num_quantizers": 8, "head_dim": 7,
	} {
		sec := codec.RealEncoderConfig()
		js := encoderJSON(t, sec.JSONSection(), map[string]any{field: v})
		if _, err := codec.ParseEncoderConfig(js); err == nil || !errors.Is(err, codec.ErrConfig) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s = %v: err = %v, want ErrConfig naming it", field, v, err)
		}
	}
}

// TestELUMatchesSimd checks that the encoder's portable ELU definition
// (ExpM1Neg, used when a backend has no ELU op, as under WASI) equals the
// native backend's bit for bit, and both are within float32 rounding of
// math.Expm1.
func TestELUMatchesSimd(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	x := []float32{0, -1e-30, -0.25, -0.2500001, -1, -59.9, -60, -61, -1e30, float32(math.Inf(-1)), 2}
	for range 100000 {
		x = append(x, float32(r.NormFloat64()*4), float32(-r.ExpFloat64()*10))
	}
	b := simd.NewBackend(2)
	defer b.Close()
	got := make([]float32, len(x))
	if err := b.ELU(got, x); err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		want := v
		if !(v > 0) {
			want = codec.ExpM1Neg(v)
			if d := math.Abs(float64(want) - math.Expm1(float64(v))); d > 2.4e-7*math.Abs(math.Expm1(float64(v))) {
				t.Fatalf("ExpM1Neg(%v) = %v, math.Expm1 %v", v, want, math.Expm1(float64(v)))
			}
		}
		if got[i] != want {
			t.Fatalf("simd ELU(%v) = %v, codec's definition %v", v, got[i], want)
		}
	}
}
