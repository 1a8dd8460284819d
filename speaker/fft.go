package speaker

import "math"

// rfft is a real FFT of a fixed power-of-two size n: a complex radix-2 FFT
// of n/2 points on the even/odd-packed input, then the split into the n/2+1
// one-sided bins. Twiddles are computed once (float64); a transform
// allocates nothing.
type rfft struct {
	n     int
	rev   []int32      // bit reversal of n/2
	tw    []complex128 // e^{-2πik/(n/2)}, k < n/4
	split []complex128 // e^{-2πik/n}, k ≤ n/2
	z     []complex128 // work, n/2
}

func newRFFT(n int) *rfft {
	h := n / 2
	f := &rfft{n: n, rev: make([]int32, h), tw: make([]complex128, h/2), split: make([]complex128, h+1), z: make([]complex128, h)}
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
	for k := range f.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(h))
		f.tw[k] = complex(c, s)
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
	for size := 2; size <= h; size <<= 1 {
		half, step := size/2, h/size
		for start := 0; start < h; start += size {
			for k := 0; k < half; k++ {
				t := f.tw[k*step] * z[start+k+half]
				u := z[start+k]
				z[start+k] = u + t
				z[start+k+half] = u - t
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
