package predictor

import (
	"github.com/omni-tts/omni/safetensors"
	"math"
	"slices"
	"strings"
	"testing"
)

// paramSum adds the element counts of the tensors whose name satisfies keep.
func paramSum(ts []safetensors.TensorInfo, keep func(string) bool) int64 {
	var n int64
	for _, t := range ts {
		if keep(t.Name) {
			n += t.Elems()
		}
	}
	return n
}

// TestExpectedTensorsGeometry checks the tensor list against docs/MODEL.md
// §2: tensor counts of the real 0.6B dump and the parameter totals per
// component (in millions, rounded as the table gives them).
func TestExpectedTensorsGeometry(t *testing.T) {
	has := func(sub string) func(string) bool { return func(n string) bool { return strings.Contains(n, sub) } }
	for _, c := range []struct {
		size                                         string
		count                                        int
		talkerModel, codePred, textProj, heads       int
		layersM, textEmbM, textProjM, codecM         float64
		predM, predTablesM, projM, totalM, layersTol float64
	}{
		{size: "0.6b", count: 402, talkerModel: 311, codePred: 86, textProj: 4, heads: 1,
			layersM: 440.5, textEmbM: 311.2, textProjM: 6.3, codecM: 6.3, predM: 141.6, predTablesM: 31.5, projM: 0,
			totalM: 914.6 - 8.9, layersTol: 0.05},
		{size: "1.7b", count: 404, talkerModel: 311, codePred: 88, textProj: 4, heads: 1,
			layersM: 1409.3, textEmbM: 311.2, textProjM: 8.4, codecM: 12.6, predM: 175.1, predTablesM: 62.9, projM: 2.1,
			// The table's 1.7B layer figure (computed, not dumped) leaves out the
			// 28 × 4352 norm gains (0.12 M): 1409.29 M matrices + 0.12 M.
			totalM: 1917, layersTol: 0.15},
	} {
		t.Run(c.size, func(t *testing.T) {
			cfg, err := SynthConfig(c.size)
			if err != nil {
				t.Fatal(err)
			}
			ts := ExpectedTensors(cfg)
			if len(ts) != c.count {
				t.Errorf("%d tensors, want %d", len(ts), c.count)
			}
			count := func(prefix string) int {
				n := 0
				for _, x := range ts {
					if strings.HasPrefix(x.Name, prefix) {
						n++
					}
				}
				return n
			}
			for _, g := range []struct {
				prefix string
				want   int
			}{
				{"talker.model.", c.talkerModel}, {"talker.code_predictor.", c.codePred},
				{"talker.text_projection.", c.textProj}, {"talker.codec_head.", c.heads},
			} {
				if got := count(g.prefix); got != g.want {
					t.Errorf("%s*: %d tensors, want %d", g.prefix, got, g.want)
				}
			}
			m := func(n int64) float64 { return float64(n) / 1e6 }
			for _, p := range []struct {
				what      string
				got, want float64
				tol       float64
			}{
				{"talker layers", m(paramSum(ts, has("talker.model.layers."))), c.layersM, c.layersTol},
				{"text embedding", m(paramSum(ts, has("text_embedding"))), c.textEmbM, 0.05},
				{"text projection", m(paramSum(ts, has("text_projection"))), c.textProjM, 0.05},
				{"codec embedding + head", m(paramSum(ts, func(n string) bool {
					return n == "talker.model.codec_embedding.weight" || n == "talker.codec_head.weight"
				})), c.codecM, 0.05},
				{"code predictor", m(paramSum(ts, has("talker.code_predictor."))), c.predM, 0.05},
				{"code predictor tables", m(paramSum(ts, has("code_predictor.model.codec_embedding."))), c.predTablesM, 0.05},
				{"small_to_mtp_projection", m(paramSum(ts, has("small_to_mtp_projection"))), c.projM, 0.05},
				{"total", m(paramSum(ts, func(string) bool { return true })), c.totalM, 0.5},
			} {
				if math.Abs(p.got-p.want) > p.tol {
					t.Errorf("%s: %.2f M parameters, want %.1f M", p.what, p.got, p.want)
				}
			}
		})
	}
}

// TestExpectedTensorShapes spot-checks shapes named in §A.2.
func TestExpectedTensorShapes(t *testing.T) {
	for _, c := range []struct {
		size, name string
		want       []int
	}{
		{"0.6b", "talker.model.layers.27.self_attn.q_proj.weight", []int{2048, 1024}},
		{"0.6b", "talker.model.layers.0.self_attn.k_proj.weight", []int{1024, 1024}},
		{"0.6b", "talker.model.layers.3.self_attn.o_proj.weight", []int{1024, 2048}},
		{"0.6b", "talker.text_projection.linear_fc2.weight", []int{1024, 2048}},
		{"0.6b", "talker.code_predictor.model.codec_embedding.14.weight", []int{2048, 1024}},
		{"0.6b", "talker.code_predictor.lm_head.0.weight", []int{2048, 1024}},
		{"1.7b", "talker.model.layers.0.mlp.down_proj.weight", []int{2048, 6144}},
		{"1.7b", "talker.model.layers.0.self_attn.k_proj.weight", []int{1024, 2048}},
		{"1.7b", "talker.code_predictor.small_to_mtp_projection.weight", []int{1024, 2048}},
		{"1.7b", "talker.code_predictor.small_to_mtp_projection.bias", []int{1024}},
		{"1.7b", "talker.code_predictor.model.codec_embedding.0.weight", []int{2048, 2048}},
		{"1.7b", "talker.code_predictor.model.layers.4.mlp.gate_proj.weight", []int{3072, 1024}},
		{"1.7b", "talker.code_predictor.model.norm.weight", []int{1024}},
		{"1.7b", "talker.code_predictor.lm_head.14.weight", []int{2048, 1024}},
		{"1.7b", "talker.model.text_embedding.weight", []int{151936, 2048}},
		{"1.7b", "talker.model.layers.0.self_attn.q_norm.weight", []int{128}},
	} {
		cfg, _ := SynthConfig(c.size)
		found := false
		for _, x := range ExpectedTensors(cfg) {
			if x.Name == c.name {
				found = true
				if !slices.Equal(x.Shape, c.want) {
					t.Errorf("%s %s shape %v, want %v", c.size, c.name, x.Shape, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: %s not listed", c.size, c.name)
		}
	}
	cfg, _ := SynthConfig("0.6b")
	for _, x := range ExpectedTensors(cfg) {
		if strings.Contains(x.Name, "small_to_mtp_projection") {
			t.Errorf("0.6b lists %s (the projection is the identity)", x.Name)
		}
	}
}

func TestParseSynthSpec(t *testing.T) {
	for _, c := range []struct {
		spec     string
		size     string
		outliers bool
		seed     uint64
		bad      string
	}{
		{spec: "synth:tiny", size: "tiny", seed: DefaultSynthSeed},
		{spec: "synth:0.6b+outliers", size: "0.6b", outliers: true, seed: DefaultSynthSeed},
		{spec: "synth:1.7b@42", size: "1.7b", seed: 42},
		{spec: "synth:tiny-wide+outliers@7", size: "tiny-wide", outliers: true, seed: 7},
		{spec: "synth:2b", bad: `unknown size "2b"`},
		{spec: "synth:tiny+noise", bad: `unknown modifier "noise"`},
		{spec: "synth:tiny@x", bad: `seed "x"`},
		{spec: "", bad: "empty model spec"},
	} {
		src, err := OpenModel(c.spec)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("OpenModel(%q) err = %v, want %q", c.spec, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenModel(%q): %v", c.spec, err)
			continue
		}
		s := src.(*synthSource)
		if s.size != c.size || s.outliers != c.outliers || s.seed != c.seed {
			t.Errorf("OpenModel(%q) = %s, want size %s outliers %v seed %d", c.spec, s, c.size, c.outliers, c.seed)
		}
	}
}
