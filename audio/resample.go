package audio

import (
	"fmt"
	"math"
)

// Resampler parameters: a Kaiser-windowed sinc of resampleZeros zero
// crossings each side at the lower of the two rates, β = resampleBeta
// (side lobes near −120 dB), cut off at resampleRolloff of the lower
// Nyquist frequency. At 24 kHz out the pass band is flat to about 10.6 kHz
// and everything above 12 kHz is at least 100 dB down.
const (
	resampleZeros   = 64
	resampleBeta    = 12.0
	resampleRolloff = 0.945
	// maxPhases bounds the phase table; a ratio with more phases (rates
	// with a small common divisor, e.g. 44101 Hz) interpolates linearly
	// between maxPhases+1 tabulated phases.
	maxPhases = 4096
)

// Resampler converts a signal from one rate to another with a band-limited
// (Kaiser-windowed sinc) polyphase filter; it is built once per pair of
// rates and holds no per-call state, so one may be reused.
type Resampler struct {
	from, to int
	up, down int64     // to/g, from/g
	phases   int       // table phases (up when up ≤ maxPhases)
	taps     int       // 2·half
	half     int       // taps each side of the output position
	table    []float32 // (phases+1)×taps
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// besselI0 is the modified Bessel function of the first kind, order 0.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 200; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

// NewResampler returns a resampler from rate from to rate to (both in
// [MinRate, MaxRate]).
func NewResampler(from, to int) (*Resampler, error) {
	if from < MinRate || from > MaxRate || to < MinRate || to > MaxRate {
		return nil, fmt.Errorf("audio: resample %d Hz → %d Hz: rates must lie in [%d, %d]", from, to, MinRate, MaxRate)
	}
	g := gcd(int64(from), int64(to))
	r := &Resampler{from: from, to: to, up: int64(to) / g, down: int64(from) / g}
	if from == to {
		return r, nil
	}
	// fc: the cut-off as a fraction of the input Nyquist frequency.
	fc := resampleRolloff * math.Min(1, float64(to)/float64(from))
	reach := resampleZeros / fc // filter half-length in input samples
	r.half = int(math.Ceil(reach))
	r.taps = 2 * r.half
	r.phases = int(min(r.up, maxPhases))
	r.table = make([]float32, (r.phases+1)*r.taps)
	i0b := besselI0(resampleBeta)
	for p := 0; p <= r.phases; p++ {
		frac := float64(p) / float64(r.phases)
		// tap k multiplies input sample i−half+1+k for an output at i+frac.
		for k := 0; k < r.taps; k++ {
			tau := frac + float64(r.half-1-k) // output time − tap time
			var h float64
			if math.Abs(tau) < reach {
				u := tau / reach
				w := besselI0(resampleBeta*math.Sqrt(1-u*u)) / i0b
				x := math.Pi * fc * tau
				s := 1.0
				if x != 0 {
					s = math.Sin(x) / x
				}
				h = fc * s * w
			}
			r.table[p*r.taps+k] = float32(h)
		}
	}
	return r, nil
}

// OutLen returns the number of output samples for n input samples:
// ⌈n·to/from⌉.
func (r *Resampler) OutLen(n int) int {
	return int((int64(n)*r.up + r.down - 1) / r.down)
}

// Resample writes OutLen(len(x)) samples of x at the output rate into dst
// (grown when short) and returns it. Output sample j sits at input time
// j·from/to; samples outside x count as zero.
func (r *Resampler) Resample(dst, x []float32) []float32 {
	n := r.OutLen(len(x))
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if r.from == r.to {
		copy(dst, x)
		return dst
	}
	for j := range dst {
		num := int64(j) * r.down
		i := int(num / r.up)
		rem := num % r.up // phase position rem/up in [0, 1)
		// table index with linear interpolation when phases < up
		pp := rem * int64(r.phases)
		p := int(pp / r.up)
		w := float32(pp%r.up) / float32(r.up)
		c0 := r.table[p*r.taps : (p+1)*r.taps]
		c1 := r.table[(p+1)*r.taps : (p+2)*r.taps]
		start := i - r.half + 1
		k0, k1 := 0, r.taps
		if start < 0 {
			k0 = -start
		}
		if start+k1 > len(x) {
			k1 = len(x) - start
		}
		xs := x[start+k0 : start+k1]
		if w == 0 {
			dst[j] = dot(c0[k0:k1], xs)
			continue
		}
		a0, a1 := dot(c0[k0:k1], xs), dot(c1[k0:k1], xs)
		dst[j] = a0 + w*(a1-a0)
	}
	return dst
}

// dot returns Σ a[i]·b[i] (len(a) == len(b)) with four partial sums.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
