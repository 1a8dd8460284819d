package simd

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// q8RefRow quantizes one row as the int8 convs' definition says, written
// here apart from quantizeRowsQ8: s = absmax/127 and q = round half to even
// of v·(127/absmax) (float32 steps), clamped to ±127; zero below 1e-30.
func q8RefRow(x []float32) (q []int, s float32) {
	amax := 0.0
	for _, v := range x {
		amax = math.Max(amax, math.Abs(float64(v)))
	}
	q = make([]int, len(x))
	if amax < float64(float32(1e-30)) {
		return q, 0
	}
	a := float32(amax)
	inv := float32(127 / a)
	for i, v := range x {
		p := float64(float32(v * inv))
		q[i] = int(max(-127, min(127, math.RoundToEven(p))))
	}
	return q, a / 127
}

func TestQuantizeRowsQ8(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for _, in := range []int{16, 20, 22, 96} {
		n, ldx := 9, in+5
		x := make([]float32, n*ldx)
		for i := range x {
			x[i] = float32(r.NormFloat64() * math.Exp(r.NormFloat64()))
		}
		clear(x[2*ldx : 2*ldx+in])      // an all-zero row
		x[3*ldx+1] = 3 * float32(1e-31) // a row below the tiny bound
		clear(x[3*ldx+2 : 3*ldx+in])    // …
		x[3*ldx] = 0                    // …
		x[5*ldx+4] = 1.5 * 127 / 127.0  // ties are possible: v·inv exactly .5
		S := q8RowStride(in)
		eachLevel(t, func(t *testing.T) {
			dst := make([]byte, n*S)
			quantizeRowsQ8(active, dst, x, n, in, ldx)
			for row := 0; row < n; row++ {
				q, s := q8RefRow(x[row*ldx : row*ldx+in])
				d := dst[row*S : (row+1)*S]
				if got := math.Float32frombits(binary.LittleEndian.Uint32(d[S-4:])); got != s {
					t.Fatalf("in %d row %d: scale %v, want %v", in, row, got, s)
				}
				for i := 0; i < S-4; i++ {
					want := 128
					if i < in {
						want = q[i] + 128
					}
					if int(d[i]) != want {
						t.Fatalf("in %d row %d input %d (%v): byte %d, want %d", in, row, i, x[row*ldx+i], d[i], want)
					}
				}
			}
		})
	}
}

// q8ConvCase is one shape of the int8 conv kernel's tests.
type q8ConvCase struct {
	out, in, taps, dil, n int
	bias, add             bool
}

func TestQ8ConvRows(t *testing.T) {
	cases := []q8ConvCase{
		{16, 16, 1, 1, 1, false, false},
		{16, 16, 1, 1, 6, true, true},
		{96, 96, 7, 3, 13, true, false},
		{96, 96, 1, 1, 13, true, true},
		{112, 32, 3, 1, 7, false, false}, // panels 4 + 2 + 1
		{48, 22, 2, 5, 11, true, false},  // inputs padded to 24
		{40, 16, 3, 2, 5, true, true},    // a partial panel: generic
		{64, 20, 7, 1, 20, false, true},
		{96, 256, 7, 2, 7, true, false}, // two chunks of panels (4 + 2)
		{40, 16, 3, 2, 5, true, false},  // a partial panel over taps: generic
	}
	for _, tc := range cases {
		if tc.add && tc.taps > 1 {
			tc.taps = 1
		}
		t.Run(fmt.Sprintf("%dx%dx%d_d%d_n%d", tc.out, tc.in, tc.taps, tc.dil, tc.n), func(t *testing.T) {
			checkQ8Conv(t, tc)
		})
	}
}

// checkQ8Conv runs one case at every level: each level's bits equal the
// generic definition's, and the outputs equal the definition computed
// here in float64 (from independently quantized values) to float32
// rounding.
func checkQ8Conv(t *testing.T, tc q8ConvCase) {
	r := rand.New(rand.NewPCG(uint64(tc.out), uint64(tc.in*100+tc.taps)))
	K := tc.taps * tc.in
	w := make([]float32, tc.out*K)
	for i := range w {
		w[i] = float32(r.NormFloat64() * 0.1)
	}
	c, err := newQ8Conv(w, tc.out, K, tc.taps)
	if err != nil {
		t.Fatal(err)
	}
	H := (tc.taps - 1) * tc.dil
	rows := H + tc.n
	x := make([]float32, rows*tc.in)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	bias := make([]float32, tc.out)
	for i := range bias {
		bias[i] = float32(r.NormFloat64())
	}
	y0 := make([]float32, tc.n*tc.out)
	for i := range y0 {
		y0[i] = float32(r.NormFloat64())
	}
	S := q8RowStride(tc.in)
	// The reference: quantized rows and weights by the definition.
	qx := make([][]int, rows)
	sx := make([]float32, rows)
	for i := range rows {
		qx[i], sx[i] = q8RefRow(x[i*tc.in : (i+1)*tc.in])
	}
	ref := make([]float64, tc.n*tc.out)
	tol := make([]float64, tc.n*tc.out)
	exact := make([]float64, tc.n*tc.out)
	for o := 0; o < tc.out; o++ {
		for j := 0; j < tc.taps; j++ {
			qw, sw := q8RefRow(w[o*K+j*tc.in : o*K+(j+1)*tc.in])
			for u := 0; u < tc.n; u++ {
				row := u + j*tc.dil
				acc := 0
				for i := range tc.in {
					acc += qx[row][i] * qw[i]
					exact[u*tc.out+o] += float64(x[row*tc.in+i]) * float64(w[o*K+j*tc.in+i])
				}
				v := float64(sx[row]) * float64(sw) * float64(acc)
				ref[u*tc.out+o] += v
				tol[u*tc.out+o] += math.Abs(v)
			}
		}
		for u := 0; u < tc.n; u++ {
			i := u*tc.out + o
			if tc.bias {
				ref[i] += float64(bias[o])
				exact[i] += float64(bias[o])
				tol[i] += math.Abs(float64(bias[o]))
			}
			if tc.add {
				ref[i] += float64(y0[i])
				exact[i] += float64(y0[i])
				tol[i] += math.Abs(float64(y0[i]))
			}
		}
	}
	run := func(l Level) []float32 {
		xq := make([]byte, rows*S)
		quantizeRowsQ8(l, xq, x, rows, tc.in, tc.in)
		y := append([]float32(nil), y0...)
		job := &q8Job{y: y, xq: xq, ts: tc.dil * S, add: tc.add}
		if tc.bias {
			job.bias = bias
		}
		job.list(tc.n, 1, tc.out, tc.n, S)
		job.run(l, c)
		return y
	}
	want := run(Generic)
	var sig, noise float64
	for i, v := range want {
		if d := math.Abs(float64(v) - ref[i]); d > float64(tc.taps+3)*0x1p-23*tol[i]+1e-30 {
			t.Fatalf("output %d (row %d, out %d): %v, the definition gives %v (|Δ| %.3g > bound %.3g)",
				i, i/tc.out, i%tc.out, v, ref[i], d, float64(tc.taps+3)*0x1p-23*tol[i])
		}
		sig += exact[i] * exact[i]
		noise += (float64(v) - exact[i]) * (float64(v) - exact[i])
	}
	if snr := 10 * math.Log10(sig/noise); snr < 30 {
		t.Errorf("SNR against the exact conv %.1f dB, want ≥ 30 (int8 rows and weights of Gaussian data)", snr)
	}
	eachLevel(t, func(t *testing.T) {
		got := run(active)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("output %d (row %d, out %d): %v, the generic definition gives %v", i, i/tc.out, i%tc.out, got[i], want[i])
			}
		}
	})
}
