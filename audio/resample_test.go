package audio

import (
	"fmt"
	"math"
	"testing"
)

func tone(n, rate int, freq, amp float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return x
}

// TestResampleTone checks against the analytic signal: a tone inside the
// pass band comes out at the new rate with its frequency, phase and
// amplitude (away from the edges, where the zero padding shows), for
// downsampling, upsampling, a rate whose ratio needs interpolated phases,
// and the identity.
func TestResampleTone(t *testing.T) {
	for _, c := range []struct {
		from int
		freq float64
		tol  float64
	}{
		{44100, 1000, 2e-4}, {48000, 3000, 2e-4}, {16000, 440, 2e-4}, {22050, 7000, 2e-4},
		{8000, 2500, 2e-4}, {96000, 9000, 2e-4}, {44101, 1234, 3e-4}, {24000, 5000, 1e-7},
	} {
		r, err := NewResampler(c.from, ReferenceRate)
		if err != nil {
			t.Fatal(err)
		}
		x := tone(c.from/2, c.from, c.freq, 0.7)
		y := r.Resample(nil, x)
		if len(y) != (len(x)*ReferenceRate+c.from-1)/c.from {
			t.Fatalf("%d Hz: %d samples out of %d", c.from, len(y), len(x))
		}
		edge := 2000 // output samples skipped at each end
		var worst float64
		for j := edge; j < len(y)-edge; j++ {
			want := 0.7 * math.Sin(2*math.Pi*c.freq*float64(j)/ReferenceRate)
			worst = max(worst, math.Abs(float64(y[j])-want))
		}
		if worst > c.tol {
			t.Errorf("%d Hz → 24 kHz, %g Hz tone: max error %.3g > %g", c.from, c.freq, worst, c.tol)
		}
	}
}

// TestResampleStopband measures the attenuation of tones above the new
// Nyquist frequency (12 kHz) when downsampling from 48 and 44.1 kHz: what
// comes out is aliasing and must be at least 90 dB down.
func TestResampleStopband(t *testing.T) {
	for _, c := range []struct {
		from int
		freq float64
	}{{48000, 12500}, {48000, 15000}, {48000, 21000}, {44100, 13000}, {44100, 20000}} {
		r, _ := NewResampler(c.from, ReferenceRate)
		y := r.Resample(nil, tone(c.from/2, c.from, c.freq, 1))
		var peak float64
		for j := 2000; j < len(y)-2000; j++ {
			peak = max(peak, math.Abs(float64(y[j])))
		}
		if db := 20 * math.Log10(peak); db > -90 {
			t.Errorf("%d Hz, %g Hz tone: residue %.1f dB, want ≤ −90 dB", c.from, c.freq, db)
		}
	}
}

func TestResamplerRates(t *testing.T) {
	if _, err := NewResampler(10, 24000); err == nil {
		t.Fatal("10 Hz accepted")
	}
	if _, err := NewResampler(24000, 1<<30); err == nil {
		t.Fatal("huge rate accepted")
	}
}

// BenchmarkResample30s resamples 30 s of 44.1 and 48 kHz audio to 24 kHz.
func BenchmarkResample30s(b *testing.B) {
	for _, rate := range []int{44100, 48000, 16000} {
		r, _ := NewResampler(rate, ReferenceRate)
		x := tone(30*rate, rate, 440, 0.5)
		dst := r.Resample(nil, x)
		b.Run(fmt.Sprint(rate), func(b *testing.B) {
			for b.Loop() {
				dst = r.Resample(dst, x)
			}
		})
	}
}
