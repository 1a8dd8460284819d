package predictor_test

import (
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// The native backend implements the graph's interface.
var _ predictor.Backend = (*simd.Backend)(nil)

// memSource is an in-memory Source for tests: a config and named tensors.
type memSource struct {
	cfg     *predictor.Config
	tensors map[string][]float32
}

func (s *memSource) Config() *predictor.Config { return s.cfg }
func (s *memSource) Close() error              { return nil }

func (s *memSource) Tensors() []safetensors.TensorInfo { return nil }

func (s *memSource) ReadF32(name string, dst []float32) error {
	t, ok := s.tensors[name]
	if !ok {
		return fmt.Errorf("memSource: no tensor %s", name)
	}
	if len(dst) != len(t) {
		return fmt.Errorf("memSource: tensor %s has %d values, dst %d", name, len(t), len(dst))
	}
	copy(dst, t)
	return nil
}

func (s *memSource) ReadRowsF32(name string, row0, n int, dst []float32) error {
	t, ok := s.tensors[name]
	if !ok {
		return fmt.Errorf("memSource: no tensor %s", name)
	}
	w := len(dst) / n
	if row0 < 0 || (row0+n)*w > len(t) {
		return fmt.Errorf("memSource: rows %d+%d of %s out of range", row0, n, name)
	}
	copy(dst, t[row0*w:(row0+n)*w])
	return nil
}

// tinyGeom describes a random test model.
type tinyGeom struct {
	talkerHidden, predHidden int
	layers, predLayers       int
	heads, kvHeads, headDim  int
	inter                    int
	talkerVocab, predVocab   int
	groups                   int
	textVocab, textHidden    int
	outliers                 []int   // predictor hidden channels with big norm gains
	outlierGain              float64 // their gain
}

// tinyModel is a small random model (projection when talker and predictor
// widths differ).
func tinyModel(g tinyGeom, seed uint64) *memSource {
	r := rand.New(rand.NewPCG(seed, 7))
	cfg := &predictor.Config{
		ModelType: "qwen3_tts", ModelSize: "test",
		Talker: predictor.DecoderConfig{Layers: g.layers, Hidden: g.talkerHidden, Intermediate: g.inter,
			Heads: g.heads, KVHeads: g.kvHeads, HeadDim: g.headDim, RMSEps: 1e-6, RopeTheta: 1e6, MaxPositions: 256},
		Predictor: predictor.DecoderConfig{Layers: g.predLayers, Hidden: g.predHidden, Intermediate: g.inter,
			Heads: g.heads, KVHeads: g.kvHeads, HeadDim: g.headDim, RMSEps: 1e-6, RopeTheta: 1e6, MaxPositions: 65536},
		TalkerVocab: g.talkerVocab, PredictorVocab: g.predVocab, CodeGroups: g.groups,
		TextVocab: g.textVocab, TextHidden: g.textHidden,
	}
	ts := map[string][]float32{}
	mat := func(name string, rows, cols int, std float64) {
		v := make([]float32, rows*cols)
		for i := range v {
			v[i] = float32(r.NormFloat64() * std)
		}
		ts[name] = v
	}
	gain := func(name string, n int, outl []int) {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(1 + 0.1*r.NormFloat64())
		}
		for _, c := range outl {
			v[c] = float32(g.outlierGain * (1 + 0.5*r.Float64()))
		}
		ts[name] = v
	}
	dec := func(prefix string, layers, hidden int, outl []int) {
		qw, kvw := g.heads*g.headDim, g.kvHeads*g.headDim
		for l := 0; l < layers; l++ {
			p := fmt.Sprintf("%slayers.%d.", prefix, l)
			gain(p+"input_layernorm.weight", hidden, outl)
			gain(p+"post_attention_layernorm.weight", hidden, outl)
			gain(p+"self_attn.q_norm.weight", g.headDim, nil)
			gain(p+"self_attn.k_norm.weight", g.headDim, nil)
			s := 1 / math.Sqrt(float64(hidden))
			mat(p+"self_attn.q_proj.weight", qw, hidden, s)
			mat(p+"self_attn.k_proj.weight", kvw, hidden, s)
			mat(p+"self_attn.v_proj.weight", kvw, hidden, s)
			mat(p+"self_attn.o_proj.weight", hidden, qw, 1/math.Sqrt(float64(qw)))
			mat(p+"mlp.gate_proj.weight", g.inter, hidden, s)
			mat(p+"mlp.up_proj.weight", g.inter, hidden, s)
			mat(p+"mlp.down_proj.weight", hidden, g.inter, 1/math.Sqrt(float64(g.inter)))
		}
		gain(prefix+"norm.weight", hidden, outl)
	}
	dec("talker.model.", g.layers, g.talkerHidden, nil)
	dec("talker.code_predictor.model.", g.predLayers, g.predHidden, g.outliers)
	mat("talker.model.codec_embedding.weight", g.talkerVocab, g.talkerHidden, 1)
	mat("talker.codec_head.weight", g.talkerVocab, g.talkerHidden, 1/math.Sqrt(float64(g.talkerHidden)))
	mat("talker.model.text_embedding.weight", g.textVocab, g.textHidden, 1)
	mat("talker.text_projection.linear_fc1.weight", g.textHidden, g.textHidden, 1/math.Sqrt(float64(g.textHidden)))
	mat("talker.text_projection.linear_fc1.bias", g.textHidden, 1, 0.1)
	mat("talker.text_projection.linear_fc2.weight", g.talkerHidden, g.textHidden, 1/math.Sqrt(float64(g.textHidden)))
	mat("talker.text_projection.linear_fc2.bias", g.talkerHidden, 1, 0.1)
	for k := 0; k < g.groups-1; k++ {
		mat(fmt.Sprintf("talker.code_predictor.model.codec_embedding.%d.weight", k), g.predVocab, g.talkerHidden, 1)
		mat(fmt.Sprintf("talker.code_predictor.lm_head.%d.weight", k), g.predVocab, g.predHidden, 1/math.Sqrt(float64(g.predHidden)))
	}
	if g.talkerHidden != g.predHidden {
		mat("talker.code_predictor.small_to_mtp_projection.weight", g.predHidden, g.talkerHidden, 1/math.Sqrt(float64(g.talkerHidden)))
		mat("talker.code_predictor.small_to_mtp_projection.bias", g.predHidden, 1, 0.1)
	}
	return &memSource{cfg: cfg, tensors: ts}
}

// smallGeom is a tiny geometry with every feature of the real ones: GQA 2:1,
// 16 code groups, an identity projection.
var smallGeom = tinyGeom{
	talkerHidden: 64, predHidden: 64, layers: 2, predLayers: 2,
	heads: 4, kvHeads: 2, headDim: 16, inter: 96,
	talkerVocab: 80, predVocab: 48, groups: 16, textVocab: 40, textHidden: 32,
}

// projGeom is smallGeom with a talker wider than the predictor (the 1.7B
// shape): a small_to_mtp_projection.
var projGeom = func() tinyGeom { g := smallGeom; g.talkerHidden = 96; return g }()

// newBackend returns a native backend closed at the end of the test.
func newBackend(t testing.TB) *simd.Backend {
	b := simd.NewBackend(1)
	t.Cleanup(b.Close)
	return b
}

func TestBackendRefusesBadCalls(t *testing.T) {
	b := newBackend(t)
	w, err := b.NewMatrix(3, 4, make([]float32, 12), nil, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.NewVector([]float32{1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
	}{
		{"matrix wrong size", func() error { _, err := b.NewMatrix(3, 4, make([]float32, 11), nil, "fp32"); return err }()},
		{"matrix bad bias", func() error { _, err := b.NewMatrix(3, 4, make([]float32, 12), make([]float32, 2), "int8"); return err }()},
		{"matrix bad precision", func() error { _, err := b.NewMatrix(3, 4, make([]float32, 12), nil, "int3"); return err }()},
		{"matrix NaN", func() error {
			d := make([]float32, 12)
			d[5] = float32(math.NaN())
			_, err := b.NewMatrix(3, 4, d, nil, "fp32")
			return err
		}()},
		{"matmul bad handle", b.MatMul(make([]float32, 3), make([]float32, 4), 1, 99)},
		{"matmul negative handle", b.MatMul(make([]float32, 3), make([]float32, 4), 1, -1)},
		{"matmul vector handle", b.MatMul(make([]float32, 3), make([]float32, 4), 1, v)},
		{"matmul short x", b.MatMul(make([]float32, 3), make([]float32, 3), 1, w)},
		{"matmul short y", b.MatMul(make([]float32, 2), make([]float32, 4), 1, w)},
		{"matmul m 0", b.MatMul(nil, nil, 0, w)},
		{"rmsnorm matrix handle", b.RMSNorm(make([]float32, 4), make([]float32, 4), 1, w, 1e-6)},
		{"rmsnorm bad eps", b.RMSNorm(make([]float32, 4), make([]float32, 4), 1, v, 0)},
		{"rmsnorm rows", b.RMSNorm(make([]float32, 4), make([]float32, 8), 2, v, 1e-6)},
		{"swiglu lengths", b.SwiGLU(make([]float32, 4), make([]float32, 7), 1)},
		{"embed bad table", b.Embed(make([]float32, 4), []int32{0}, 1, v)},
		{"free twice", func() error { h, _ := b.NewVector([]float32{1}); b.Free(h); return b.Free(h) }()},
		{"kv zero layers", func() error { _, err := b.NewKVCache(0, 1, 2, 3); return err }()},
		{"rope odd", func() error { _, err := b.NewRope(3, 4, 1e4); return err }()},
	}
	tab, err := b.NewTable(5, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		struct {
			name string
			err  error
		}{"embed id out of range", b.Embed(make([]float32, 4), []int32{5}, 1, tab)},
		struct {
			name string
			err  error
		}{"embed negative id", b.Embed(make([]float32, 4), []int32{-1}, 1, tab)},
		struct {
			name string
			err  error
		}{"write past end", b.WriteTable(tab, 4, make([]float32, 8))},
	)
	kv, _ := b.NewKVCache(1, 1, 4, 2)
	rope, _ := b.NewRope(4, 2, 1e4)
	att := func(pos int32, layer int, heads int) error {
		return b.Attention(make([]float32, heads*4), make([]float32, (heads+2)*4), 1, []int32{kv}, []int32{pos}, layer, v, v, rope, heads, 1e-6)
	}
	if err := att(1, 0, 2); err != nil {
		t.Fatalf("valid Attention call: %v", err)
	}
	cases = append(cases,
		struct {
			name string
			err  error
		}{"attention position past cache", att(2, 0, 2)},
		struct {
			name string
			err  error
		}{"attention negative position", att(-1, 0, 2)},
		struct {
			name string
			err  error
		}{"attention layer past cache", att(0, 1, 2)},
		struct {
			name string
			err  error
		}{"attention cache handle is a vector", b.Attention(make([]float32, 8), make([]float32, 16), 1, []int32{v}, []int32{0}, 0, v, v, rope, 2, 1e-6)},
	)
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestBackendMatMulAndEmbed(t *testing.T) {
	b := newBackend(t)
	// W = [[1 2],[3 4],[5 6]], bias [0.5 0 -1]; x rows [1 1], [2 -1].
	w, err := b.NewMatrix(3, 2, []float32{1, 2, 3, 4, 5, 6}, []float32{0.5, 0, -1}, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float32, 6)
	if err := b.MatMul(y, []float32{1, 1, 2, -1}, 2, w); err != nil {
		t.Fatal(err)
	}
	want := []float32{3.5, 7, 10, 0.5, 2, 3}
	for i := range want {
		if y[i] != want[i] {
			t.Errorf("MatMul y[%d] = %v, want %v", i, y[i], want[i])
		}
	}
	if err := b.MatMulAdd(y, []float32{1, 1, 2, -1}, 2, w); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if y[i] != 2*want[i] {
			t.Errorf("MatMulAdd y[%d] = %v, want %v", i, y[i], 2*want[i])
		}
	}
	tab, _ := b.NewTable(3, 2, []float32{1, 2, 10, 20, 100, 200})
	out := make([]float32, 4)
	if err := b.Embed(out, []int32{0, 2, 1, 1}, 2, tab); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float32{101, 202, 20, 40} {
		if out[i] != v {
			t.Errorf("Embed out[%d] = %v, want %v", i, out[i], v)
		}
	}
}
