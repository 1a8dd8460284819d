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
	meanStd(ms, x, T, C, s.acc)
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
	logits := s.cat[:T*C] // the MFA input is spent
	if err := e.b.Conv(logits, att, T, 1, e.aspConv.h); err != nil {
		return fmt.Errorf("speaker: asp conv: %w", err)
	}
	if sb, ok := e.b.(StatsBackend); ok {
		if err := sb.SoftmaxStats(s.pooled[:2*C], x, logits, T, C); err != nil {
			return fmt.Errorf("speaker: asp statistics: %w", err)
		}
		return nil
	}
	softmaxStats(s.pooled[:2*C], x, logits, T, C, s.acc)
	return nil
}

// softmaxStats writes the attention-weighted mean ‖ std of x's C columns
// over T rows into dst, the weights of each column being the softmax over
// time of that column of logits: two passes (the maxima, then the
// exponentials with their sums Σe, Σe·x, Σe·x² in float64), with
// var = Σe·x²/Σe − mean² and std = sqrt(max(var, 1e-12)).
func softmaxStats(dst, x, logits []float32, T, C int, acc [][]float64) {
	mx, s0, s1, s2 := acc[0][:C], acc[1][:C], acc[2][:C], acc[3][:C]
	for i := range mx {
		mx[i] = math.Inf(-1)
	}
	clear(s0)
	clear(s1)
	clear(s2)
	for t := 0; t < T; t++ {
		for i, v := range logits[t*C : (t+1)*C] {
			mx[i] = max(mx[i], float64(v))
		}
	}
	for t := 0; t < T; t++ {
		lr, xr := logits[t*C:(t+1)*C], x[t*C:(t+1)*C]
		for i, l := range lr {
			p := math.Exp(float64(l) - mx[i])
			v := float64(xr[i])
			s0[i] += p
			s1[i] += p * v
			s2[i] += p * v * v
		}
	}
	for i := 0; i < C; i++ {
		m := s1[i] / s0[i]
		dst[i] = float32(m)
		dst[C+i] = float32(math.Sqrt(max(s2[i]/s0[i]-m*m, statsEps)))
	}
}

// meanStd writes the mean ‖ std of x's C columns over T rows into dst
// (2·C values), two passes in float64: std = sqrt(max(Σ(x − mean)²/T, 1e-12)).
func meanStd(dst, x []float32, T, C int, acc [][]float64) {
	m, v := acc[0][:C], acc[1][:C]
	clear(m)
	clear(v)
	for t := 0; t < T; t++ {
		for i, a := range x[t*C : (t+1)*C] {
			m[i] += float64(a)
		}
	}
	for i := range m {
		m[i] /= float64(T)
	}
	for t := 0; t < T; t++ {
		for i, a := range x[t*C : (t+1)*C] {
			d := float64(a) - m[i]
			v[i] += d * d
		}
	}
	for i := 0; i < C; i++ {
		dst[i] = float32(m[i])
		dst[C+i] = float32(math.Sqrt(max(v[i]/float64(T), statsEps)))
	}
}
