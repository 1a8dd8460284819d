package speaker_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/speaker"
)

// simd.Backend is the native implementation of the encoder's Backend,
// with the pooling op.
var (
	_ speaker.Backend      = (*simd.Backend)(nil)
	_ speaker.StatsBackend = (*simd.Backend)(nil)
)

// convOnly hides every method of a backend but the Backend ones, so the
// encoder computes the pooling statistics in Go (as under WASI).
type convOnly struct{ speaker.Backend }

// refEncoder is a brute-force definition of the network in PyTorch's
// channel-major layout, written from the architecture (not from the
// package's graph): every conv a direct sum with reflect "same" padding,
// float64 throughout.
type refEncoder struct {
	cfg speaker.Config
	w   map[string][]float64
}

func newRef(cfg speaker.Config, seed uint64) *refEncoder {
	r := &refEncoder{cfg: cfg, w: map[string][]float64{}}
	for _, t := range speaker.ExpectedTensors(&cfg) {
		v := speaker.SynthTensor(t, seed)
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		r.w[t.Name] = f
	}
	return r
}

// conv applies speaker_encoder.<name> (out×in×k, dilation d) to x [in][T].
func (r *refEncoder) conv(name string, x [][]float64, out, k, d int) [][]float64 {
	w, b := r.w[speaker.Prefix+name+".weight"], r.w[speaker.Prefix+name+".bias"]
	in, T := len(x), len(x[0])
	left := (k - 1) * d / 2
	y := make([][]float64, out)
	for o := range y {
		y[o] = make([]float64, T)
		for t := 0; t < T; t++ {
			s := b[o]
			for i := 0; i < in; i++ {
				for j := 0; j < k; j++ {
					p := t + j*d - left
					if p < 0 {
						p = -p
					} else if p >= T {
						p = 2*(T-1) - p
					}
					s += w[(o*in+i)*k+j] * x[i][p]
				}
			}
			y[o][t] = s
		}
	}
	return y
}

func reluM(x [][]float64) [][]float64 {
	for _, r := range x {
		for i := range r {
			r[i] = math.Max(0, r[i])
		}
	}
	return x
}

func (r *refEncoder) forward(mel [][]float64) []float64 { // mel [T][128]
	c := r.cfg
	T := len(mel)
	x := make([][]float64, c.MelDim)
	for i := range x {
		x[i] = make([]float64, T)
		for t := 0; t < T; t++ {
			x[i][t] = mel[t][i]
		}
	}
	L := len(c.Channels) - 1
	x = reluM(r.conv("blocks.0.conv", x, c.Channels[0], c.Kernels[0], c.Dilations[0]))
	var outs [][][]float64
	for b := 1; b < L; b++ {
		p := fmt.Sprintf("blocks.%d.", b)
		C, s := c.Channels[b], c.Res2NetScale
		h := reluM(r.conv(p+"tdnn1.conv", x, C, 1, 1))
		w := C / s
		var res, prev [][]float64
		for j := 0; j < s; j++ {
			part := h[j*w : (j+1)*w]
			if j == 0 {
				res = append(res, part...)
				continue
			}
			in := part
			if j >= 2 {
				in = make([][]float64, w)
				for i := range in {
					in[i] = make([]float64, T)
					for t := range in[i] {
						in[i][t] = part[i][t] + prev[i][t]
					}
				}
			}
			prev = reluM(r.conv(fmt.Sprintf("%sres2net_block.blocks.%d.conv", p, j-1), in, w, c.Kernels[b], c.Dilations[b]))
			res = append(res, prev...)
		}
		h2 := reluM(r.conv(p+"tdnn2.conv", res, C, 1, 1))
		mean := make([][]float64, C)
		for i := range mean {
			m := 0.0
			for _, v := range h2[i] {
				m += v
			}
			mean[i] = []float64{m / float64(T)}
		}
		z := reluM(r.conv(p+"se_block.conv1", mean, c.SEChannels, 1, 1))
		g := r.conv(p+"se_block.conv2", z, C, 1, 1)
		y := make([][]float64, C)
		for i := range y {
			y[i] = make([]float64, T)
			sg := 1 / (1 + math.Exp(-g[i][0]))
			for t := range y[i] {
				y[i][t] = h2[i][t]*sg + x[i][t]
			}
		}
		outs = append(outs, y)
		x = y
	}
	var cat [][]float64
	for _, o := range outs {
		cat = append(cat, o...)
	}
	h := reluM(r.conv("mfa.conv", cat, c.Channels[L], c.Kernels[L], c.Dilations[L]))
	CL := c.Channels[L]
	stats := func(wt [][]float64) ([]float64, []float64) {
		m, sd := make([]float64, CL), make([]float64, CL)
		for i := 0; i < CL; i++ {
			for t := 0; t < T; t++ {
				m[i] += wt[i][t] * h[i][t]
			}
			for t := 0; t < T; t++ {
				sd[i] += wt[i][t] * (h[i][t] - m[i]) * (h[i][t] - m[i])
			}
			sd[i] = math.Sqrt(math.Max(sd[i], 1e-12))
		}
		return m, sd
	}
	uni := make([][]float64, CL)
	for i := range uni {
		uni[i] = make([]float64, T)
		for t := range uni[i] {
			uni[i][t] = 1 / float64(T)
		}
	}
	m, sd := stats(uni)
	att := append([][]float64{}, h...)
	for _, v := range [][]float64{m, sd} { // cat(x, mean, std) over channels
		for i := 0; i < CL; i++ {
			row := make([]float64, T)
			for t := range row {
				row[t] = v[i]
			}
			att = append(att, row)
		}
	}
	a := reluM(r.conv("asp.tdnn.conv", att, c.AttentionChannels, 1, 1))
	for _, row := range a {
		for t := range row {
			row[t] = math.Tanh(row[t])
		}
	}
	lg := r.conv("asp.conv", a, CL, 1, 1)
	for _, row := range lg {
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		sum := 0.0
		for t, v := range row {
			row[t] = math.Exp(v - mx)
			sum += row[t]
		}
		for t := range row {
			row[t] /= sum
		}
	}
	wm, ws := stats(lg)
	pooled := make([][]float64, 2*CL)
	for i := 0; i < CL; i++ {
		pooled[i] = []float64{wm[i]}
		pooled[CL+i] = []float64{ws[i]}
	}
	out := r.conv("fc", pooled, c.EncDim, 1, 1)
	e := make([]float64, c.EncDim)
	for i := range e {
		e[i] = out[i][0]
	}
	return e
}

// TestEncoderMatchesReference runs the tiny geometry (and one with other
// dilations and a Res2Net scale of 8) at every kernel level on random mel
// input, including the shortest accepted length and odd lengths, against
// the brute-force forward.
func TestEncoderMatchesReference(t *testing.T) {
	odd := speaker.TinyConfig()
	odd.Res2NetScale, odd.Channels = 8, []int{40, 40, 40, 40, 56}
	odd.Dilations = []int{2, 1, 5, 2, 1}
	odd.Kernels = []int{3, 3, 5, 3, 3}
	odd.EncDim = 7
	for _, lv := range simd.Levels() {
		if !simd.Supported(lv) {
			continue
		}
		restore := simd.Use(lv)
		for ci, cfg := range []speaker.Config{speaker.TinyConfig(), odd, speaker.TinyConfig()} {
			b := simd.NewBackend(2)
			var be speaker.Backend = b
			if ci == 2 {
				be = convOnly{b}
			}
			enc, err := speaker.NewSynthetic(cfg, 11, be, "fp32")
			if err != nil {
				t.Fatal(err)
			}
			ref := newRef(cfg, 11)
			rng := rand.New(rand.NewPCG(3, uint64(ci)))
			for _, T := range []int{cfg.MinFrames(), 13, 37} {
				mel := make([]float32, T*cfg.MelDim)
				melR := make([][]float64, T)
				for i := range mel {
					mel[i] = float32(rng.NormFloat64()*2 - 5)
				}
				for t := range melR {
					melR[t] = make([]float64, cfg.MelDim)
					for i := range melR[t] {
						melR[t][i] = float64(mel[t*cfg.MelDim+i])
					}
				}
				got := make([]float32, cfg.EncDim)
				if err := enc.EmbedMel(got, mel, T); err != nil {
					t.Fatalf("%s config %d T=%d: %v", lv, ci, T, err)
				}
				want := ref.forward(melR)
				var norm float64
				for _, v := range want {
					norm += v * v
				}
				if norm < 1e-6 {
					t.Fatalf("config %d: reference embedding of norm² %g is degenerate", ci, norm)
				}
				for i := range want {
					if d := math.Abs(float64(got[i]) - want[i]); d > 2e-5+2e-5*math.Abs(want[i]) {
						t.Errorf("%s config %d T=%d: embedding[%d] = %v, want %v", lv, ci, T, i, got[i], want[i])
					}
				}
			}
			enc.Close()
			b.Close()
		}
		restore()
	}
}
