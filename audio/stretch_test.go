package audio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

var stretchSpeeds = []float64{0.25, 0.5, 0.8, 1.25, 2, 4}

const stretchRate = 24000

// toneBurst is pad seconds of silence, a burst of dur seconds whose
// frequency goes linearly from f0 to f1 Hz (a sine when equal), amplitude
// 0.5, and pad seconds of silence.
func toneBurst(f0, f1, dur, pad float64) []float32 {
	np, nb := int(pad*stretchRate), int(dur*stretchRate)
	x := make([]float32, 2*np+nb)
	for i := range nb {
		t := float64(i) / stretchRate
		phase := 2 * math.Pi * (f0*t + (f1-f0)*t*t/(2*dur))
		x[np+i] = float32(0.5 * math.Sin(phase))
	}
	return x
}

// burstSpan finds the first and last sample louder than 0.25 (half the
// burst's amplitude): the test's own envelope detector.
func burstSpan(y []float32) (first, last int) {
	first, last = -1, -1
	for i, v := range y {
		if math.Abs(float64(v)) > 0.25 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// zeroCrossingHz estimates the frequency of y[from:to] from its rising
// zero crossings, each placed between samples by linear interpolation:
// (crossings−1) periods between the first and the last.
func zeroCrossingHz(y []float32, from, to int) float64 {
	var firstT, lastT float64
	n := 0
	for i := from + 1; i < to; i++ {
		a, b := float64(y[i-1]), float64(y[i])
		if a < 0 && b >= 0 {
			t := float64(i-1) + a/(a-b)
			if n == 0 {
				firstT = t
			}
			lastT = t
			n++
		}
	}
	if n < 2 {
		return 0
	}
	return float64(n-1) * stretchRate / (lastT - firstT)
}

func stretchAll(t testing.TB, speed float64, x []float32) []float32 {
	t.Helper()
	s, err := NewStretcher(stretchRate, speed)
	if err != nil {
		t.Fatal(err)
	}
	return s.Flush(s.Process(nil, x))
}

// TestStretchDurationAndPitch: sines at several pitches, each a 3 s burst
// between silences; the output is round(n/speed) samples, the burst's
// length in the output (an envelope threshold) is within 1 % of 3/speed s,
// and the pitch inside the burst (zero crossings) is within 1 % of the
// input's. (WSOLA moves a sound's edges by up to the search half-width,
// 10 ms of input, so a burst of 3 s keeps that under 1 % at every speed.)
func TestStretchDurationAndPitch(t *testing.T) {
	for _, speed := range stretchSpeeds {
		for _, f := range []float64{110, 440, 2500} {
			t.Run(fmt.Sprintf("speed%g/%gHz", speed, f), func(t *testing.T) {
				x := toneBurst(f, f, 3, 0.25)
				y := stretchAll(t, speed, x)
				if want := int(math.Round(float64(len(x)) / speed)); len(y) != want {
					t.Fatalf("%d output samples, want round(%d/%g) = %d", len(y), len(x), speed, want)
				}
				first, last := burstSpan(y)
				dur, want := float64(last-first+1)/stretchRate, 3/speed
				if math.Abs(dur-want)/want > 0.01 {
					t.Errorf("burst lasts %.4f s, want %.4f s within 1 %%", dur, want)
				}
				margin := (last - first) / 20
				got := zeroCrossingHz(y, first+margin, last-margin)
				if math.Abs(got-f)/f > 0.01 {
					t.Errorf("pitch %.3f Hz, want %g Hz within 1 %%", got, f)
				}
				t.Logf("burst %.4f s (want %.4f), pitch %.3f Hz (want %g)", dur, want, got, f)
			})
		}
	}
}

// TestStretchChirp: a slow chirp (200 → 300 Hz over a 3 s input burst);
// the output burst lasts 3/speed s within 1 %, and in each window of it (a quarter second of input) the frequency is
// within 1 % of the input's at the corresponding input time (a linear
// chirp's mean frequency over an interval is its value at the middle).
func TestStretchChirp(t *testing.T) {
	for _, speed := range stretchSpeeds {
		t.Run(fmt.Sprintf("speed%g", speed), func(t *testing.T) {
			x := toneBurst(200, 300, 3, 0.25)
			y := stretchAll(t, speed, x)
			first, last := burstSpan(y)
			if dur, want := float64(last-first+1)/stretchRate, 3/speed; math.Abs(dur-want)/want > 0.01 {
				t.Errorf("burst lasts %.4f s, want %.4f s within 1 %%", dur, want)
			}
			win := int(stretchRate / 4 / speed) // a quarter second of input
			for w := first + win/4; w+win <= last-win/4; w += win {
				mid := float64(w+win/2-first) / float64(last-first) // fraction of the burst
				want := 200 + 100*mid
				got := zeroCrossingHz(y, w, w+win)
				if math.Abs(got-want)/want > 0.01 {
					t.Errorf("window at %.2f of the burst: %.2f Hz, want %.2f within 1 %%", mid, got, want)
				}
			}
		})
	}
}

// TestStretchChunked: the same input fed in random chunk sizes (1 sample
// to 5000) gives bit-identical output to one call, at every speed.
func TestStretchChunked(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := toneBurst(180, 900, 1.5, 0.1)
	for i := range x {
		x[i] += float32(rng.NormFloat64() * 0.05)
	}
	for _, speed := range stretchSpeeds {
		want := stretchAll(t, speed, x)
		for trial := range 3 {
			s, err := NewStretcher(stretchRate, speed)
			if err != nil {
				t.Fatal(err)
			}
			var got []float32
			for rest := x; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN([]int{7, 500, 5000}[trial]))
				got = s.Process(got, rest[:n])
				rest = rest[n:]
			}
			got = s.Flush(got)
			if !slices.Equal(got, want) {
				t.Fatalf("speed %g trial %d: chunked output (%d samples) differs from one call (%d)", speed, trial, len(got), len(want))
			}
		}
	}
}

// TestStretchPassthrough: speed 1 returns its input bit for bit.
func TestStretchPassthrough(t *testing.T) {
	x := toneBurst(300, 300, 0.3, 0.01)
	s, err := NewStretcher(stretchRate, 1)
	if err != nil {
		t.Fatal(err)
	}
	y := s.Flush(s.Process(s.Process(nil, x[:100]), x[100:]))
	if !slices.Equal(y, x) {
		t.Fatal("speed 1 changed the signal")
	}
}

// TestStretchRefuses: speeds outside [0.25, 4] and NaN are refused by value.
func TestStretchRefuses(t *testing.T) {
	for _, v := range []float64{0.2499, 4.001, 0, -1, math.NaN(), math.Inf(1)} {
		if _, err := NewStretcher(stretchRate, v); err == nil {
			t.Errorf("speed %g accepted", v)
		}
	}
	if _, err := NewStretcher(0, 2); err == nil {
		t.Error("rate 0 accepted")
	}
}

// TestStretchShortAndEmpty: no input gives no output; a few samples give
// round(n/speed).
func TestStretchShortAndEmpty(t *testing.T) {
	for _, speed := range stretchSpeeds {
		if y := stretchAll(t, speed, nil); len(y) != 0 {
			t.Errorf("speed %g: %d samples from none", speed, len(y))
		}
		x := make([]float32, 37)
		if y := stretchAll(t, speed, x); len(y) != int(math.Round(37/speed)) {
			t.Errorf("speed %g: %d samples from 37", speed, len(y))
		}
	}
}

// TestStretchNoAllocs: once dst has grown, Process does not allocate.
func TestStretchNoAllocs(t *testing.T) {
	x := toneBurst(220, 220, 0.5, 0)
	for _, speed := range []float64{0.25, 4} {
		s, _ := NewStretcher(stretchRate, speed)
		dst := make([]float32, 0, 8*len(x))
		allocs := testing.AllocsPerRun(5, func() { dst = s.Process(dst[:0], x[:1920]) })
		if allocs != 0 {
			t.Errorf("speed %g: %.1f allocations per Process", speed, allocs)
		}
	}
}

// BenchmarkStretch reports the cost per second of input audio.
func BenchmarkStretch(b *testing.B) {
	x := toneBurst(150, 400, 1, 0)
	for _, speed := range stretchSpeeds {
		b.Run(fmt.Sprintf("speed%g", speed), func(b *testing.B) {
			s, _ := NewStretcher(stretchRate, speed)
			dst := make([]float32, 0, 8*len(x))
			b.ResetTimer()
			for b.Loop() {
				for i := 0; i < len(x); i += 1920 {
					dst = s.Process(dst[:0], x[i:min(i+1920, len(x))])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/audio-s")
		})
	}
}
