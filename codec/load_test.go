package codec_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/safetensors"
	"github.com/omni-tts/omni/simd"
)

// writeEdited writes the synthetic tiny codec to a directory after edit
// changes its tensor list.
func writeEdited(t *testing.T, edit func(ts []safetensors.WriteTensor) []safetensors.WriteTensor) string {
	t.Helper()
	dir := t.TempDir()
	cfg := codec.TinyConfig()
	if err := codec.WriteSynthetic(dir, cfg, 3); err != nil {
		t.Fatal(err)
	}
	var ts []safetensors.WriteTensor
	for _, tn := range codec.ExpectedTensors(&cfg) {
		v := codec.SynthTensor(tn, 3)
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		ts = append(ts, safetensors.WriteTensor{Name: tn.Name, DType: safetensors.F32, Shape: tn.Shape, Data: b})
	}
	ts = edit(ts)
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, dir string) (*codec.Model, error) {
	b := simd.NewBackend(1)
	t.Cleanup(b.Close)
	m, err := codec.Load(dir, b, "fp32")
	if m != nil {
		t.Cleanup(func() { m.Close() })
	}
	return m, err
}

func find(ts []safetensors.WriteTensor, name string) int {
	for i, t := range ts {
		if t.Name == name {
			return i
		}
	}
	panic("no tensor " + name)
}

func TestLoadMatchesSynthetic(t *testing.T) {
	dir := writeEdited(t, func(ts []safetensors.WriteTensor) []safetensors.WriteTensor { return ts })
	// As a checkpoint directory too: speech_tokenizer/ inside.
	ck := t.TempDir()
	if err := os.Rename(dir, filepath.Join(ck, "speech_tokenizer")); err != nil {
		t.Fatal(err)
	}
	m, err := load(t, ck)
	if err != nil {
		t.Fatal(err)
	}
	mem := tinyModelSeed(t, 3)
	codes := randomCodes(newRand(), 6, m.Config().CodebookSize)
	s1, _ := m.NewStream()
	s2, _ := mem.NewStream()
	a := decodeSplit(t, m, s1, codes, []int{6})
	b := decodeSplit(t, mem, s2, codes, []int{6})
	if i := firstDiff(a, b); i >= 0 {
		t.Fatalf("loaded and in-memory synthetic codecs differ at sample %d: %v vs %v", i, a[i], b[i])
	}
}

func TestLoadRefuses(t *testing.T) {
	const name = "decoder.pre_transformer.layers.1.self_attn.k_proj.weight"
	cases := []struct {
		what string
		edit func(ts []safetensors.WriteTensor) []safetensors.WriteTensor
		is   error
		msg  string
	}{
		{"missing tensor", func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, name)
			return append(ts[:i], ts[i+1:]...)
		}, codec.ErrNoTensor, name},
		{"wrong shape", func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, name)
			ts[i].Shape = []int{ts[i].Shape[1], ts[i].Shape[0]}
			return ts
		}, codec.ErrShape, name + ": shape [32 64], config says [64 32]"},
		{"NaN", func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, "decoder.decoder.3.block.1.conv.bias")
			binary.LittleEndian.PutUint32(ts[i].Data[4*5:], 0x7fc00000)
			return ts
		}, codec.ErrNonFinite, "decoder.decoder.3.block.1.conv.bias [5]"},
		{"infinity", func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, "decoder.quantizer.rvq_rest.vq.layers.3._codebook.embedding_sum")
			binary.LittleEndian.PutUint32(ts[i].Data[4*17:], 0xff800000)
			return ts
		}, codec.ErrNonFinite, "embedding_sum [17]"},
		{"integer dtype", func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, "decoder.decoder.5.alpha")
			ts[i].DType = safetensors.I32
			return ts
		}, safetensors.ErrDType, "decoder.decoder.5.alpha"},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			_, err := load(t, writeEdited(t, c.edit))
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want %v naming %q", err, c.is, c.msg)
			}
		})
	}
}

func TestParseConfigRefuses(t *testing.T) {
	cfg := codec.RealConfig()
	js, err := cfg.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := codec.ParseConfig(js)
	if err != nil {
		t.Fatal(err)
	}
	if got.SamplesPerFrame() != 1920 || got.HeadDim != 64 || got.SlidingWindow != 72 || got.RMSEps != 1e-5 {
		t.Fatalf("real config round trip: %+v", got)
	}
	for _, c := range []struct{ from, to, msg string }{
		{`"num_quantizers": 16`, `"num_quantizers": 8`, "num_quantizers 8"},
		{`"num_key_value_heads": 16`, `"num_key_value_heads": 8`, "num_key_value_heads 8"},
		{`"decode_upsample_rate": 1920`, `"decode_upsample_rate": 1900`, "decode_upsample_rate 1900"},
		{`"decoder_dim": 1536`, `"decoder_dim": 1000`, "decoder_dim 1000"},
		{`"head_dim": 64`, `"head_dim": 63`, "head_dim 63"},
		{`"hidden_act": "silu"`, `"hidden_act": "gelu"`, "hidden_act"},
		{`"sliding_window": 72`, `"sliding_window": 0`, "sliding_window 0"},
		{`"hidden_size": 512,`, ``, "hidden_size missing"},
	} {
		s := strings.Replace(string(js), c.from, c.to, 1)
		if s == string(js) {
			t.Fatalf("%q not in the config", c.from)
		}
		_, err := codec.ParseConfig([]byte(s))
		if !errors.Is(err, codec.ErrConfig) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s → %s: err = %v, want ErrConfig naming %q", c.from, c.to, err, c.msg)
		}
	}
}

func TestRealGeometry(t *testing.T) {
	cfg := codec.RealConfig()
	ts := codec.ExpectedTensors(&cfg)
	var n, params int
	for _, x := range ts {
		n++
		params += x.Elems()
	}
	// 271 decoder tensors in the released file; 114.3 M parameters (A.7)
	// of which the decoder reads all but the two encoder-side input_proj.
	if n != 271 {
		t.Errorf("%d tensors, the released decoder has 271", n)
	}
	if params < 114_000_000 || params > 114_700_000 {
		t.Errorf("%d parameters, A.7 counts 114.3 M", params)
	}
	if g := float64(cfg.MACsPerFrame()) / 1e9; g < 2.40 || g > 2.56 {
		t.Errorf("%.3f GMAC per frame, A.7 counts ≈ 2.48", g)
	}
	// The residual units by hand: 4 rows per frame enter the vocoder
	// (upsampling 2·2), blocks of strides 8, 5, 4, 3 halve 1536 channels
	// each time; every block runs three units of a 7-tap and a 1-tap conv
	// of out×out per output row: 24·(32·768² + 160·384² + 640·192² +
	// 1920·96²) = 2,010,120,192.
	if got := cfg.MACsPerFamily()[codec.FamRes]; got != 2_010_120_192 {
		t.Errorf("residual units: %d MACs per frame, want 2,010,120,192", got)
	}
}
