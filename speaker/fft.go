package speaker

import "math"

// rfft is a real FFT of a fixed power-of-two size n ≥ 8: a complex radix-2 FFT
// of n/2 points on the even/odd-packed input, then the split into the n/2+1
// one-sided bins. Twiddles are computed once (float64); a transform
// allocates nothing.
type rfft struct {
	n     int
	rev   []int32      // bit reversal of n/2
	tw    []complex128 // per stage of span 2^s ≥ 8: e^{-2πik/2^s}, k < 2^(s−1), stage after stage
	split []complex128 // e^{-2πik/n}, k ≤ n/2
	z     []complex128 // work, n/2
}

func newRFFT(n int) *rfft {
	h := n / 2
	f := &rfft{n: n, rev: make([]int32, h), tw: make([]complex128, 0, h), split: make([]complex128, h+1), z: make([]complex128, h)}
	bits := 0
	for 1<<bits < h {
		bits++
	}
	for i := range f.rev {
		r := 0
		for b := 0; b < bits; b++ {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		f.rev[i] = int32(r)
	}
	f.tw = f.tw[:0]
	for size := 8; size <= h; size <<= 1 {
		for k := 0; k < size/2; k++ {
			s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(size))
			f.tw = append(f.tw, complex(c, s))
		}
	}
	for k := range f.split {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.split[k] = complex(c, s)
	}
	return f
}

// power writes |X[k]|² for k ≤ n/2 of the real input x (n values) to out.
func (f *rfft) power(out []float64, x []float64) {
	h := f.n / 2
	z := f.z
	for i := 0; i < h; i++ {
		z[f.rev[i]] = complex(x[2*i], x[2*i+1])
	}
	// Spans 2 and 4 in one pass: their twiddles are 1 and −i, exact.
	for s := 0; s+3 < h; s += 4 {
		a, b := z[s]+z[s+1], z[s]-z[s+1]
		c, d := z[s+2]+z[s+3], z[s+2]-z[s+3]
		d = complex(imag(d), -real(d)) // −i·d
		z[s], z[s+2] = a+c, a-c
		z[s+1], z[s+3] = b+d, b-d
	}
	tw := f.tw
	for size := 8; size <= h; size <<= 1 {
		half := size / 2
		w := tw[:half]
		tw = tw[half:]
		for start := 0; start < h; start += size {
			lo, hi := z[start:start+half], z[start+half:start+size]
			for k, t := range w {
				t *= hi[k]
				u := lo[k]
				lo[k] = u + t
				hi[k] = u - t
			}
		}
	}
	for k := 0; k <= h; k++ {
		a, b := z[k%h], z[(h-k)%h]
		ar, ai, br, bi := real(a), imag(a), real(b), -imag(b) // b = conj(Z[h−k])
		er, ei := (ar+br)/2, (ai+bi)/2                        // even part (a + b)/2
		or, oi := (ai-bi)/2, -(ar-br)/2                       // odd part (a − b)/(2i)
		w := f.split[k]
		vr := er + real(w)*or - imag(w)*oi
		vi := ei + real(w)*oi + imag(w)*or
		out[k] = vr*vr + vi*vi
	}
}
