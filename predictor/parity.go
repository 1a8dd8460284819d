package predictor

import "math"

// Parity accumulates how closely a test precision's logits follow an fp32
// reference's on the same inputs, one (row, sub-step) pair at a time: top-1
// agreement, top-5 overlap, max |Δlogit| and KL(ref ‖ test) of the softmaxes.
// The engine exports the means as predictor.parity_* statistics. The zero
// value is empty and ready; Record allocates nothing.
type Parity struct {
	// Pairs is the number of (row, sub-step) pairs recorded.
	Pairs int64
	// Top1Sum counts pairs whose argmax agreed.
	Top1Sum float64
	// Top5Sum sums, per pair, the fraction of the test's top-5 ids that are
	// in the reference's top 5.
	Top5Sum float64
	// MaxAbsDiff is the largest |ref − test| over every logit recorded.
	MaxAbsDiff float64
	// KLSum sums KL(softmax(ref) ‖ softmax(test)) over pairs (nats).
	KLSum float64
}

// Record adds rows pairs whose logits are ref and test (rows×vocab each).
func (p *Parity) Record(ref, test []float32, rows, vocab int) {
	for r := 0; r < rows; r++ {
		a := ref[r*vocab : (r+1)*vocab]
		b := test[r*vocab : (r+1)*vocab]
		ta, tb := top5(a), top5(b)
		if ta[0] == tb[0] {
			p.Top1Sum++
		}
		common := 0
		for _, i := range tb {
			for _, j := range ta {
				if i == j && i >= 0 {
					common++
					break
				}
			}
		}
		k := min(5, vocab)
		p.Top5Sum += float64(common) / float64(k)
		la, lb := logSumExp(a), logSumExp(b)
		kl := 0.0
		for i := range a {
			d := math.Abs(float64(a[i]) - float64(b[i]))
			if d > p.MaxAbsDiff {
				p.MaxAbsDiff = d
			}
			lpa := float64(a[i]) - la
			lpb := float64(b[i]) - lb
			kl += math.Exp(lpa) * (lpa - lpb)
		}
		p.KLSum += kl
		p.Pairs++
	}
}

// Merge adds o's sums to p.
func (p *Parity) Merge(o Parity) {
	p.Pairs += o.Pairs
	p.Top1Sum += o.Top1Sum
	p.Top5Sum += o.Top5Sum
	p.KLSum += o.KLSum
	p.MaxAbsDiff = math.Max(p.MaxAbsDiff, o.MaxAbsDiff)
}

// Top1 returns the fraction of pairs whose argmax agreed (0 when empty).
func (p *Parity) Top1() float64 { return p.mean(p.Top1Sum) }

// Top5 returns the mean top-5 overlap (0 when empty).
func (p *Parity) Top5() float64 { return p.mean(p.Top5Sum) }

// MeanKL returns the mean KL(ref ‖ test) in nats (0 when empty).
func (p *Parity) MeanKL() float64 { return p.mean(p.KLSum) }

func (p *Parity) mean(s float64) float64 {
	if p.Pairs == 0 {
		return 0
	}
	return s / float64(p.Pairs)
}

// top5 returns the indices of the five largest values, largest first (ties
// to the lower index; -1 pads a row shorter than 5).
func top5(x []float32) [5]int {
	idx := [5]int{-1, -1, -1, -1, -1}
	var val [5]float32
	for i, v := range x {
		if v != v { // NaN never ranks
			continue
		}
		k := 5
		for k > 0 && (idx[k-1] < 0 || v > val[k-1]) {
			k--
		}
		if k == 5 {
			continue
		}
		copy(idx[k+1:], idx[k:4])
		copy(val[k+1:], val[k:4])
		idx[k], val[k] = i, v
	}
	return idx
}

// logSumExp returns log Σ exp(x[i]) in float64.
func logSumExp(x []float32) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if float64(v) > m {
			m = float64(v)
		}
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	return m + math.Log(s)
}
