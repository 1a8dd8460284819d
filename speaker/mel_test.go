package speaker

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestRFFTMatchesDFT checks the real FFT's power against a direct DFT.
func TestRFFTMatchesDFT(t *testing.T) {
	for _, n := range []int{8, 64, NFFT} {
		f := newRFFT(n)
		r := rand.New(rand.NewPCG(1, uint64(n)))
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		got := make([]float64, n/2+1)
		f.power(got, x)
		for k := range got {
			var s complex128
			for i, v := range x {
				s += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(k*i)/float64(n)))
			}
			want := real(s)*real(s) + imag(s)*imag(s)
			if math.Abs(got[k]-want) > 1e-9*(1+want) {
				t.Fatalf("n=%d bin %d: %v, want %v", n, k, got[k], want)
			}
		}
	}
}

// TestMelDefinition compares Compute with the definition evaluated
// directly: reflect padding by index, a direct DFT of each windowed frame,
// the Slaney triangles evaluated at each bin's frequency.
func TestMelDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 1000) // odd frame count, reflection at both ends
	for i := range x {
		x[i] = float32(r.NormFloat64() * 0.3)
	}
	m := NewMel()
	got, T, err := m.Compute(nil, x)
	if err != nil {
		t.Fatal(err)
	}
	if T != 3 || len(got) != 3*NumMels {
		t.Fatalf("T = %d", T)
	}
	// mel points, equally spaced on the Slaney scale
	pts := make([]float64, NumMels+2)
	for i := range pts {
		pts[i] = melToHz(hzToMel(FMax) * float64(i) / (NumMels + 1))
	}
	for f := 0; f < T; f++ {
		frame := make([]float64, NFFT)
		for i := range frame {
			j := f*Hop + i - 384
			if j < 0 {
				j = -j
			}
			if j >= len(x) {
				j = 2*(len(x)-1) - j
			}
			frame[i] = float64(x[j]) * (0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/NFFT))
		}
		mag := make([]float64, NFFT/2+1)
		for k := range mag {
			var s complex128
			for i, v := range frame {
				s += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(k*i)/NFFT))
			}
			mag[k] = math.Sqrt(real(s)*real(s) + imag(s)*imag(s) + 1e-9)
		}
		for b := 0; b < NumMels; b++ {
			var s float64
			for k, v := range mag {
				hz := float64(k) * SampleRate / NFFT
				tri := math.Max(0, math.Min((hz-pts[b])/(pts[b+1]-pts[b]), (pts[b+2]-hz)/(pts[b+2]-pts[b+1])))
				s += tri * 2 / (pts[b+2] - pts[b]) * v
			}
			want := math.Log(math.Max(s, 1e-5))
			if d := math.Abs(float64(got[f*NumMels+b]) - want); d > 1e-5 {
				t.Fatalf("frame %d mel %d: %v, want %v", f, b, got[f*NumMels+b], want)
			}
		}
	}
}

// TestMelWorked checks worked numbers: the Slaney scale's fixed points
// (1 kHz = 15 mels, 6.4 kHz = 42 mels), silence at the clamp, a tone's
// energy in the band around its frequency, and the refusal of clips too
// short to reflect.
func TestMelWorked(t *testing.T) {
	if v := hzToMel(1000); math.Abs(v-15) > 1e-12 {
		t.Fatalf("hzToMel(1000) = %v", v)
	}
	if v := hzToMel(6400); math.Abs(v-42) > 1e-9 {
		t.Fatalf("hzToMel(6400) = %v", v)
	}
	m := NewMel()
	got, _, err := m.Compute(nil, make([]float32, 2048))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got { // √1e-9 ≈ 3.2e-5 per bin, times filter areas ≪ 1
		if math.Abs(float64(v)-math.Log(1e-5)) > 1e-6 {
			t.Fatalf("silence mel %d = %v, want ln 1e-5", i, v)
		}
	}
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*3000*float64(i)/SampleRate))
	}
	got, T, _ := m.Compute(nil, x)
	row := got[(T/2)*NumMels : (T/2+1)*NumMels]
	best := 0
	for i, v := range row {
		if v > row[best] {
			best = i
		}
	}
	pts := func(i int) float64 { return melToHz(hzToMel(FMax) * float64(i) / (NumMels + 1)) }
	if !(pts(best) < 3000 && 3000 < pts(best+2)) {
		t.Fatalf("3 kHz tone peaks in mel %d (%.0f–%.0f Hz)", best, pts(best), pts(best+2))
	}
	if _, _, err := m.Compute(nil, make([]float32, 384)); err == nil {
		t.Fatal("384 samples accepted")
	}
	if MelFrames(385) != 1 || MelFrames(1280) != 5 || MelFrames(1279) != 4 {
		t.Fatalf("MelFrames: %d %d %d", MelFrames(385), MelFrames(1280), MelFrames(1279))
	}
}
