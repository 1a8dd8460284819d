package codec_test

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/safetensors"
	"github.com/omni-tts/omni/simd"
)

// TestLoadEncoderSynthetic writes the tiny synthetic codec with its encoder
// and checks that LoadEncoder gives the codes of the in-memory synthetic
// encoder, and that the decoder still loads from the same directory.
func TestLoadEncoderSynthetic(t *testing.T) {
	dir := t.TempDir()
	dec := codec.TinyConfig()
	enc := codec.TinyEncoderConfig()
	enc.Ratios = []int{2, 3, 4} // the decoder's 48 samples per frame
	if err := codec.WriteSyntheticCodec(dir, dec, &enc, 5); err != nil {
		t.Fatal(err)
	}
	b := simd.NewBackend(1)
	defer b.Close()
	e, err := codec.LoadEncoder(dir, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	mem, err := codec.NewSyntheticEncoder(enc, 5, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	clip := noise(rand.New(rand.NewPCG(1, 1)), 777)
	got, err := e.AppendEncode(nil, clip)
	if err != nil {
		t.Fatal(err)
	}
	want, err := mem.AppendEncode(nil, clip)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("loaded encoder: %d frames, in-memory %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("frame %d: loaded %v, in-memory %v", i, got[i], want[i])
		}
	}
	m, err := codec.Load(dir, b, "fp32")
	if err != nil {
		t.Fatalf("the decoder beside the encoder: %v", err)
	}
	m.Close()
	bad := enc
	bad.Ratios = []int{2, 3}
	if err := codec.WriteSyntheticCodec(t.TempDir(), dec, &bad, 5); !errors.Is(err, codec.ErrConfig) {
		t.Errorf("an encoder frame of 12 samples beside a decoder of 48: err = %v, want ErrConfig", err)
	}
}

// writeEncoder writes the tiny encoder's tensors to dir, each passed
// through edit (which may drop a tensor by returning nil, or change it).
func writeEncoder(t *testing.T, dir string, cfg codec.EncoderConfig, edit func(name string, shape []int, v []float32) ([]int, []float32)) {
	t.Helper()
	sec := cfg.JSONSection()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), encoderJSON(t, sec, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	var ws []safetensors.WriteTensor
	for _, ts := range codec.EncoderTensors(&cfg) {
		shape, v := edit(ts.Name, ts.Shape, codec.SynthTensor(ts, 3))
		if v == nil {
			continue
		}
		ws = append(ws, safetensors.WriteTensor{Name: ts.Name, DType: safetensors.F32, Shape: shape,
			Stream: func(w io.Writer) error {
				data := make([]byte, 4*len(v))
				for i, x := range v {
					binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
				}
				_, err := w.Write(data)
				return err
			}})
	}
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), ws, nil); err != nil {
		t.Fatal(err)
	}
}

// TestLoadEncoderRefuses checks that a missing tensor, a wrong shape and a
// non-finite weight are refused with the tensor named.
func TestLoadEncoderRefuses(t *testing.T) {
	const target = "encoder.encoder_transformer.layers.1.mlp.fc1.weight"
	cfg := codec.TinyEncoderConfig()
	for _, c := range []struct {
		name string
		edit func(name string, shape []int, v []float32) ([]int, []float32)
		is   error
	}{
		{"missing", func(n string, s []int, v []float32) ([]int, []float32) {
			if n == target {
				return s, nil
			}
			return s, v
		}, codec.ErrNoTensor},
		{"shape", func(n string, s []int, v []float32) ([]int, []float32) {
			if n == target {
				return []int{s[1], s[0]}, v
			}
			return s, v
		}, codec.ErrShape},
		{"nan", func(n string, s []int, v []float32) ([]int, []float32) {
			if n == target {
				v[7] = float32(math.NaN())
			}
			return s, v
		}, codec.ErrNonFinite},
	} {
		dir := t.TempDir()
		writeEncoder(t, dir, cfg, c.edit)
		b := simd.NewBackend(1)
		_, err := codec.LoadEncoder(dir, b, "fp32")
		b.Close()
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), target) {
			t.Errorf("%s: err = %v, want %v naming %s", c.name, err, c.is, target)
		}
	}
	dir := t.TempDir()
	writeEncoder(t, dir, cfg, func(_ string, s []int, v []float32) ([]int, []float32) { return s, v })
	b := simd.NewBackend(1)
	defer b.Close()
	if _, err := codec.LoadEncoder(dir, b, "int8"); !errors.Is(err, codec.ErrArgs) {
		t.Errorf("precision int8: err = %v, want ErrArgs", err)
	}
	e, err := codec.LoadEncoder(dir, b, "bf16")
	if err != nil {
		t.Fatalf("bf16: %v", err)
	}
	e.Close()
}

// FuzzParseEncoderConfig checks that any config either parses to a
// geometry that validates or is refused with ErrConfig, never a panic.
func FuzzParseEncoderConfig(f *testing.F) {
	for _, c := range []codec.EncoderConfig{codec.RealEncoderConfig(), codec.TinyEncoderConfig()} {
		f.Add(encoderJSONBytes(c.JSONSection()))
	}
	f.Add([]byte(`{"encoder_config": {"num_filters": -1}}`))
	f.Add([]byte(`{"encoder_config": null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := codec.ParseEncoderConfig(b)
		if err != nil {
			if !errors.Is(err, codec.ErrConfig) {
				t.Fatalf("error %v is not ErrConfig", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config does not validate: %v", err)
		}
	})
}
