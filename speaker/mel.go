package speaker

import (
	"fmt"
	"math"
)

// The speaker encoder's log-mel front end, fixed by the upstream code (not
// by the config): 24 kHz input, 1024-point FFT every 256 samples with a
// periodic Hann window of 1024, 128 Slaney mels from 0 to 12 kHz.
const (
	SampleRate = 24000
	NFFT       = 1024
	Hop        = 256
	NumMels    = 128
	FMin       = 0
	FMax       = 12000
	// melPad is the reflect padding each side, (NFFT − Hop)/2, applied
	// before framing without centring.
	melPad = (NFFT - Hop) / 2
	// melFloor is the clamp before the logarithm.
	melFloor = 1e-5
	// magEps is added under the square root of the power.
	magEps = 1e-9
)

// MelFrames returns the number of mel frames for n samples: one per Hop
// after the reflect padding, ⌊(n + 2·384 − 1024)/256⌋ + 1 = ⌊n/256⌋; n
// must exceed the padding (384) for the reflection to exist.
func MelFrames(n int) int {
	if n <= melPad {
		return 0
	}
	return (n+2*melPad-NFFT)/Hop + 1
}

// Mel computes log-mel spectrograms. It holds the filterbank, the window,
// the FFT and the frame buffers, so a computation allocates nothing; a Mel
// is used by one goroutine at a time.
type Mel struct {
	window []float64 // periodic Hann
	fft    *rfft
	frame  []float64 // NFFT
	power  []float64 // NFFT/2+1
	lo     []int     // first bin of each filter
	w      [][]float64
}

// NewMel returns the front end (the filterbank is built here).
func NewMel() *Mel {
	m := &Mel{window: make([]float64, NFFT), fft: newRFFT(NFFT), frame: make([]float64, NFFT), power: make([]float64, NFFT/2+1)}
	for i := range m.window {
		m.window[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/NFFT)
	}
	m.lo, m.w = slaneyFilters(SampleRate, NFFT, NumMels, FMin, FMax)
	return m
}

// hzToMel is the Slaney mel scale: linear below 1 kHz (200/3 Hz per mel),
// logarithmic above (27 mels per factor 6.4).
func hzToMel(f float64) float64 {
	const fsp, minLogHz, minLogMel = 200.0 / 3, 1000.0, 15.0
	if f < minLogHz {
		return f / fsp
	}
	return minLogMel + math.Log(f/minLogHz)/(math.Log(6.4)/27)
}

func melToHz(m float64) float64 {
	const fsp, minLogHz, minLogMel = 200.0 / 3, 1000.0, 15.0
	if m < minLogMel {
		return m * fsp
	}
	return minLogHz * math.Exp((math.Log(6.4)/27)*(m-minLogMel))
}

// slaneyFilters builds librosa's mel filterbank (htk=False, norm="slaney"):
// triangles between n+2 points equally spaced in mel, each scaled by
// 2/(f_hi − f_lo); returned sparse (first bin and weights of each filter).
func slaneyFilters(sr, nfft, n int, fmin, fmax float64) ([]int, [][]float64) {
	bins := nfft/2 + 1
	pts := make([]float64, n+2)
	lm, hm := hzToMel(fmin), hzToMel(fmax)
	for i := range pts {
		pts[i] = melToHz(lm + (hm-lm)*float64(i)/float64(n+1))
	}
	lo := make([]int, n)
	ws := make([][]float64, n)
	for i := 0; i < n; i++ {
		enorm := 2 / (pts[i+2] - pts[i])
		first, fw := -1, []float64(nil)
		for k := 0; k < bins; k++ {
			f := float64(sr) / 2 * float64(k) / float64(bins-1)
			lower := (f - pts[i]) / (pts[i+1] - pts[i])
			upper := (pts[i+2] - f) / (pts[i+2] - pts[i+1])
			v := math.Max(0, math.Min(lower, upper))
			if v > 0 {
				if first < 0 {
					first = k
				}
				fw = append(fw[:k-first], v*enorm)
			}
		}
		if first < 0 {
			first = 0
		}
		lo[i], ws[i] = first, fw
	}
	return lo, ws
}

// Compute writes the log-mel spectrogram of x (mono, 24 kHz) into dst,
// time-major [T][NumMels] with T = MelFrames(len(x)), growing dst when
// short, and returns it with T. x must hold more than 384 samples.
func (m *Mel) Compute(dst []float32, x []float32) ([]float32, int, error) {
	n := len(x)
	T := MelFrames(n)
	if T < 1 {
		return dst, 0, fmt.Errorf("speaker: %d samples is too short for the mel front end (need more than %d)", n, melPad)
	}
	if cap(dst) < T*NumMels {
		dst = make([]float32, T*NumMels)
	}
	dst = dst[:T*NumMels]
	for t := 0; t < T; t++ {
		start := t*Hop - melPad            // index in x of the frame's first sample
		if start >= 0 && start+NFFT <= n { // inside the clip: no reflection
			for i, v := range x[start : start+NFFT] {
				m.frame[i] = float64(v) * m.window[i]
			}
		} else {
			for i := 0; i < NFFT; i++ {
				j := start + i
				if j < 0 {
					j = -j
				} else if j >= n {
					j = 2*(n-1) - j
				}
				m.frame[i] = float64(x[j]) * m.window[i]
			}
		}
		m.fft.power(m.power, m.frame)
		for k, p := range m.power {
			m.power[k] = math.Sqrt(p + magEps)
		}
		row := dst[t*NumMels : (t+1)*NumMels]
		for f, w := range m.w {
			var s float64
			pw := m.power[m.lo[f]:]
			for k, v := range w {
				s += v * pw[k]
			}
			row[f] = float32(math.Log(math.Max(s, melFloor)))
		}
	}
	return dst, T, nil
}
