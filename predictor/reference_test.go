package predictor_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/omni-tts/omni/predictor"
)

// This file is a plain float64 Qwen3 decoder written from the formulas of
// docs/MODEL.md §3 (pre-norm, q/k per-head RMSNorm before rotate-half
// RoPE, GQA, SwiGLU, no biases), dense and without handles or caches: every
// call recomputes the whole causal sequence.

type refLayer struct {
	in, post, qn, kn           []float64
	q, k, v, o, gate, up, down [][]float64
}

type refDecoder struct {
	g      predictor.DecoderConfig
	layers []refLayer
	norm   []float64
}

// readVec reads a tensor as float64.
func readVec(t testing.TB, src predictor.Source, name string, n int) []float64 {
	t.Helper()
	buf := make([]float32, n)
	if err := src.ReadF32(name, buf); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	out := make([]float64, n)
	for i, v := range buf {
		out[i] = float64(v)
	}
	return out
}

// readMat reads a rows×cols tensor as float64 rows.
func readMat(t testing.TB, src predictor.Source, name string, rows, cols int) [][]float64 {
	t.Helper()
	flat := readVec(t, src, name, rows*cols)
	m := make([][]float64, rows)
	for r := range m {
		m[r] = flat[r*cols : (r+1)*cols]
	}
	return m
}

func loadRefDecoder(t testing.TB, src predictor.Source, prefix string, g predictor.DecoderConfig) *refDecoder {
	d := &refDecoder{g: g}
	qw, kvw := g.Heads*g.HeadDim, g.KVHeads*g.HeadDim
	for l := 0; l < g.Layers; l++ {
		p := fmt.Sprintf("%slayers.%d.", prefix, l)
		d.layers = append(d.layers, refLayer{
			in:   readVec(t, src, p+"input_layernorm.weight", g.Hidden),
			post: readVec(t, src, p+"post_attention_layernorm.weight", g.Hidden),
			qn:   readVec(t, src, p+"self_attn.q_norm.weight", g.HeadDim),
			kn:   readVec(t, src, p+"self_attn.k_norm.weight", g.HeadDim),
			q:    readMat(t, src, p+"self_attn.q_proj.weight", qw, g.Hidden),
			k:    readMat(t, src, p+"self_attn.k_proj.weight", kvw, g.Hidden),
			v:    readMat(t, src, p+"self_attn.v_proj.weight", kvw, g.Hidden),
			o:    readMat(t, src, p+"self_attn.o_proj.weight", g.Hidden, qw),
			gate: readMat(t, src, p+"mlp.gate_proj.weight", g.Intermediate, g.Hidden),
			up:   readMat(t, src, p+"mlp.up_proj.weight", g.Intermediate, g.Hidden),
			down: readMat(t, src, p+"mlp.down_proj.weight", g.Hidden, g.Intermediate),
		})
	}
	d.norm = readVec(t, src, prefix+"norm.weight", g.Hidden)
	return d
}

func refRMS(x, w []float64, eps float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	inv := 1 / math.Sqrt(ss/float64(len(x))+eps)
	out := make([]float64, len(x))
	for i := range x {
		out[i] = x[i] * inv * w[i]
	}
	return out
}

func refLinear(w [][]float64, x []float64) []float64 {
	y := make([]float64, len(w))
	for o, row := range w {
		var s float64
		for i, v := range row {
			s += v * x[i]
		}
		y[o] = s
	}
	return y
}

// refRope rotates one head (rotate-half) to position pos.
func refRope(x []float64, pos int, theta float64) {
	d := len(x)
	h := d / 2
	for i := 0; i < h; i++ {
		a := float64(pos) * math.Pow(theta, -float64(2*i)/float64(d))
		c, s := math.Cos(a), math.Sin(a)
		x1, x2 := x[i], x[i+h]
		x[i] = x1*c - x2*s
		x[i+h] = x2*c + x1*s
	}
}

// forward runs the causal decoder over rows at positions 0..T-1 and returns
// the final-norm hidden of every row.
func (d *refDecoder) forward(rows [][]float64) [][]float64 {
	g := d.g
	T := len(rows)
	x := make([][]float64, T)
	for i := range rows {
		x[i] = append([]float64(nil), rows[i]...)
	}
	hd, group := g.HeadDim, g.Heads/g.KVHeads
	for _, l := range d.layers {
		qs := make([][]float64, T)
		ks := make([][]float64, T)
		vs := make([][]float64, T)
		for t := 0; t < T; t++ {
			h := refRMS(x[t], l.in, g.RMSEps)
			q, k := refLinear(l.q, h), refLinear(l.k, h)
			vs[t] = refLinear(l.v, h)
			for hh := 0; hh < g.Heads; hh++ {
				copy(q[hh*hd:], refRMS(q[hh*hd:(hh+1)*hd], l.qn, g.RMSEps))
				refRope(q[hh*hd:(hh+1)*hd], t, g.RopeTheta)
			}
			for hh := 0; hh < g.KVHeads; hh++ {
				copy(k[hh*hd:], refRMS(k[hh*hd:(hh+1)*hd], l.kn, g.RMSEps))
				refRope(k[hh*hd:(hh+1)*hd], t, g.RopeTheta)
			}
			qs[t], ks[t] = q, k
		}
		for t := 0; t < T; t++ {
			att := make([]float64, g.Heads*hd)
			for hh := 0; hh < g.Heads; hh++ {
				kh := hh / group
				sc := make([]float64, t+1)
				mx := math.Inf(-1)
				for p := 0; p <= t; p++ {
					var s float64
					for i := 0; i < hd; i++ {
						s += qs[t][hh*hd+i] * ks[p][kh*hd+i]
					}
					sc[p] = s / math.Sqrt(float64(hd))
					mx = math.Max(mx, sc[p])
				}
				var sum float64
				for p := range sc {
					sc[p] = math.Exp(sc[p] - mx)
					sum += sc[p]
				}
				for p := range sc {
					for i := 0; i < hd; i++ {
						att[hh*hd+i] += sc[p] / sum * vs[p][kh*hd+i]
					}
				}
			}
			o := refLinear(l.o, att)
			for i := range x[t] {
				x[t][i] += o[i]
			}
		}
		for t := 0; t < T; t++ {
			h := refRMS(x[t], l.post, g.RMSEps)
			gt, up := refLinear(l.gate, h), refLinear(l.up, h)
			act := make([]float64, len(gt))
			for i, v := range gt {
				act[i] = v / (1 + math.Exp(-v)) * up[i]
			}
			dn := refLinear(l.down, act)
			for i := range x[t] {
				x[t][i] += dn[i]
			}
		}
	}
	out := make([][]float64, T)
	for t := range x {
		out[t] = refRMS(x[t], d.norm, g.RMSEps)
	}
	return out
}

// refPredictor is the code predictor from the formulas of §A.5.
type refPredictor struct {
	cfg     *predictor.Config
	dec     *refDecoder
	heads   [][][]float64
	talkerE [][]float64   // talker codec_embedding
	tables  [][][]float64 // code_predictor codec_embedding[k]
	projW   [][]float64   // small_to_mtp_projection, or nil
	projB   []float64
	tHidden int
	pHidden int
	groups  int
	predV   int
}

func loadRefPredictor(t testing.TB, src predictor.Source) *refPredictor {
	c := src.Config()
	p := &refPredictor{cfg: c, tHidden: c.Talker.Hidden, pHidden: c.Predictor.Hidden, groups: c.CodeGroups, predV: c.PredictorVocab}
	p.dec = loadRefDecoder(t, src, "talker.code_predictor.model.", c.Predictor)
	p.talkerE = readMat(t, src, "talker.model.codec_embedding.weight", c.TalkerVocab, c.Talker.Hidden)
	for k := 0; k < c.CodeGroups-1; k++ {
		p.heads = append(p.heads, readMat(t, src, fmt.Sprintf("talker.code_predictor.lm_head.%d.weight", k), c.PredictorVocab, c.Predictor.Hidden))
		p.tables = append(p.tables, readMat(t, src, fmt.Sprintf("talker.code_predictor.model.codec_embedding.%d.weight", k), c.PredictorVocab, c.Talker.Hidden))
	}
	if c.HasProjection() {
		p.projW = readMat(t, src, "talker.code_predictor.small_to_mtp_projection.weight", c.Predictor.Hidden, c.Talker.Hidden)
		p.projB = readVec(t, src, "talker.code_predictor.small_to_mtp_projection.bias", c.Predictor.Hidden)
	}
	return p
}

func (p *refPredictor) proj(x []float64) []float64 {
	if p.projW == nil {
		return append([]float64(nil), x...)
	}
	y := refLinear(p.projW, x)
	for i := range y {
		y[i] += p.projB[i]
	}
	return y
}

// logits returns the teacher-forced logits of codebooks 1..groups-1 for one
// stream: rows [proj(h), proj(E_talker[c0]), proj(E_0[c1]), ...,
// proj(E_{groups-3}[c_{groups-2}])], and lm_head[g-1] on the hidden at
// position g.
func (p *refPredictor) logits(h []float64, codes []int32) [][]float64 {
	rows := [][]float64{p.proj(h), p.proj(p.talkerE[codes[0]])}
	for g := 2; g < p.groups; g++ {
		rows = append(rows, p.proj(p.tables[g-2][codes[g-1]]))
	}
	hid := p.dec.forward(rows)
	out := make([][]float64, p.groups-1)
	for g := 1; g < p.groups; g++ {
		out[g-1] = refLinear(p.heads[g-1], hid[g])
	}
	return out
}
