package simd

import (
	"fmt"
	"math"
)

// SoftmaxStats runs the attentive statistics pooling of the speaker
// encoder: for each of c channels, the softmax over the m rows of that
// channel of logits (time-major, m×c) weights the rows of x (m×c), and out
// gets the weighted mean (out[:c]) then the weighted standard deviation
// (out[c:2c]):
//
//	w[r][i] = exp(l[r][i] − max_r l[·][i]) / Σ_r exp(…)
//	mean[i] = Σ_r w·x,  std[i] = sqrt(max(Σ_r w·x² − mean², 1e-12))
//
// in float64 sums (the exponentials in float64 at the generic and AVX2
// levels, in float32 at AVX-512). Channels split over the pool. It implements
// speaker.StatsBackend.
func (b *Backend) SoftmaxStats(out, x, logits []float32, m, c int) error {
	if m < 1 || c < 1 || m > maxRows || len(x) != m*c || len(logits) != m*c || len(out) != 2*c {
		return fmt.Errorf("simd: backend: SoftmaxStats of %d rows of %d channels with len(x) %d, len(logits) %d, len(out) %d", m, c, len(x), len(logits), len(out))
	}
	if b.pool != nil && m*c >= statsSplit && c > statsCols {
		t := &b.statsT
		*t = softmaxStatsTask{out: out, x: x, logits: logits, m: m, c: c}
		b.pool.Run(t, c, statsCols)
		*t = softmaxStatsTask{}
		return nil
	}
	softmaxStatsCols(out, x, logits, m, c, 0, c)
	return nil
}

// statsSplit is the number of values from which SoftmaxStats splits its
// channels over the pool; statsCols is the channels one pass handles (its
// float64 sums live on the stack).
const (
	statsSplit = 16384
	statsCols  = 64
)

// softmaxStatsTask runs SoftmaxStats on channels [lo, hi).
type softmaxStatsTask struct {
	out, x, logits []float32
	m, c           int
}

// RunRange implements Task.
func (t *softmaxStatsTask) RunRange(lo, hi int) {
	softmaxStatsCols(t.out, t.x, t.logits, t.m, t.c, lo, hi)
}

// softmaxStatsCols computes SoftmaxStats for channels [lo, hi), statsCols
// at a time: one pass for the maxima, one for the exponentials and sums.
func softmaxStatsCols(out, x, logits []float32, m, c, lo, hi int) {
	if Active() == AVX512VNNI {
		// 16 columns a pass; p in float32 from the Softmax kernels'
		// exponential (within 2 ulps), the sums in float64.
		var s [48]float64
		for c0 := lo; c0 < hi; c0 += 16 {
			n := min(16, hi-c0)
			statsColsAVX512(&logits[c0], &x[c0], m, c, n, &s)
			for i := 0; i < n; i++ {
				mean := s[16+i] / s[i]
				out[c0+i] = float32(mean)
				out[c+c0+i] = float32(math.Sqrt(max(s[32+i]/s[i]-mean*mean, 1e-12)))
			}
		}
		return
	}
	for c0 := lo; c0 < hi; c0 += statsCols {
		c1 := min(c0+statsCols, hi)
		n := c1 - c0
		var mx, s0, s1, s2 [statsCols]float64
		for i := 0; i < n; i++ {
			mx[i] = math.Inf(-1)
		}
		for r := 0; r < m; r++ {
			for i, v := range logits[r*c+c0 : r*c+c1] {
				mx[i] = max(mx[i], float64(v))
			}
		}
		for r := 0; r < m; r++ {
			lr, xr := logits[r*c+c0:r*c+c1], x[r*c+c0:r*c+c1]
			for i, l := range lr {
				p := math.Exp(float64(l) - mx[i])
				v := float64(xr[i])
				s0[i] += p
				s1[i] += p * v
				s2[i] += p * v * v
			}
		}
		for i := 0; i < n; i++ {
			mean := s1[i] / s0[i]
			out[c0+i] = float32(mean)
			out[c+c0+i] = float32(math.Sqrt(max(s2[i]/s0[i]-mean*mean, 1e-12)))
		}
	}
}
