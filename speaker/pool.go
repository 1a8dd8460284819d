package speaker

import (
	"fmt"
	"math"
)

// statsEps is the clamp under the square root of a (weighted) variance.
const statsEps = 1e-12

// pool runs attentive statistics pooling on x ([T][C_L], the MFA output)
// into e.s.pooled: the uniform mean and std of every channel join x as the
// attention input (cat(x, mean, std) → TDNN → tanh → conv → softmax over
// time), and the attention-weighted mean and std (the weights applied to
// the squared deviation from the weighted mean) are the result.
func (e *Encoder) pool(x []float32, T int) error {
	s := &e.s
	C := e.aspConv.out
	A := e.aspX.out
	ms := s.ms[:2*C]
	weightedStats(ms, x, nil, T, C, s.acc)
	// the constant part of the bottleneck: bias + W_mean·mean + W_std·std
	for a := 0; a < A; a++ {
		w := e.aspMS[a*2*C : (a+1)*2*C]
		sum := float64(e.aspBias[a])
		for i, v := range ms {
			sum += float64(w[i]) * float64(v)
		}
		s.fold[a] = float32(sum)
	}
	att := s.att[:T*A]
	if err := e.b.Conv(att, x, T, 1, e.aspX.h); err != nil {
		return fmt.Errorf("speaker: asp tdnn: %w", err)
	}
	for t := 0; t < T; t++ {
		row := att[t*A : (t+1)*A]
		for a, v := range row {
			v += s.fold[a]
			if v < 0 {
				v = 0
			}
			row[a] = float32(math.Tanh(float64(v)))
		}
	}
	logits := s.logits[:T*C]
	if err := e.b.Conv(logits, att, T, 1, e.aspConv.h); err != nil {
		return fmt.Errorf("speaker: asp conv: %w", err)
	}
	softmaxTime(logits, T, C, s.acc[0], s.acc[1])
	weightedStats(s.pooled[:2*C], x, logits, T, C, s.acc)
	return nil
}

// softmaxTime replaces each column of w ([T][C]) by its softmax over time.
func softmaxTime(w []float32, T, C int, mx, sum []float64) {
	mx, sum = mx[:C], sum[:C]
	for i := range mx {
		mx[i] = math.Inf(-1)
		sum[i] = 0
	}
	for t := 0; t < T; t++ {
		for i, v := range w[t*C : (t+1)*C] {
			mx[i] = max(mx[i], float64(v))
		}
	}
	for t := 0; t < T; t++ {
		row := w[t*C : (t+1)*C]
		for i, v := range row {
			p := math.Exp(float64(v) - mx[i])
			row[i] = float32(p)
			sum[i] += p
		}
	}
	for i := range sum {
		sum[i] = 1 / sum[i]
	}
	for t := 0; t < T; t++ {
		row := w[t*C : (t+1)*C]
		for i := range row {
			row[i] = float32(float64(row[i]) * sum[i])
		}
	}
}

// weightedStats writes mean ‖ std of x's C columns over T rows into dst
// (2·C values): with weights w ([T][C], each column summing to 1) or
// uniform 1/T when w is nil; std = sqrt(max(Σ_t w·(x − mean)², 1e-12)).
func weightedStats(dst, x, w []float32, T, C int, acc [][]float64) {
	m, v := acc[0][:C], acc[1][:C]
	clear(m)
	clear(v)
	u := 1 / float64(T)
	for t := 0; t < T; t++ {
		row := x[t*C : (t+1)*C]
		if w == nil {
			for i, a := range row {
				m[i] += u * float64(a)
			}
			continue
		}
		wr := w[t*C : (t+1)*C]
		for i, a := range row {
			m[i] += float64(wr[i]) * float64(a)
		}
	}
	for t := 0; t < T; t++ {
		row := x[t*C : (t+1)*C]
		for i, a := range row {
			d := float64(a) - m[i]
			if w == nil {
				v[i] += u * d * d
			} else {
				v[i] += float64(w[t*C+i]) * d * d
			}
		}
	}
	for i := 0; i < C; i++ {
		dst[i] = float32(m[i])
		dst[C+i] = float32(math.Sqrt(max(v[i], statsEps)))
	}
}
