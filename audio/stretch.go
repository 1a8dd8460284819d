package audio

import (
	"fmt"
	"math"
)

// The speed range a Stretcher takes: OpenAI's speech API takes speed in
// [0.25, 4.0].
const (
	MinSpeed = 0.25
	MaxSpeed = 4.0
)

// WSOLA parameters at 24 kHz: 20 ms Hann frames at 50 % overlap (the
// shifted windows sum to one), and a search of ±10 ms around each frame's
// nominal input position, which spans a whole period of any voice pitch
// above 50 Hz, so a seam can always be put in phase.
const (
	stretchFrameMS = 20
	stretchSeekMS  = 10
	// stretchPull is the score a candidate at the end of the search gives
	// up against one at the nominal position (scores are correlations in
	// [-1, 1]).
	stretchPull = 0.05
)

// Stretcher changes the speed of a mono signal without changing its pitch,
// by WSOLA (waveform-similarity overlap-add): output frames of N samples
// are laid every N/2 samples, and each is read from the input near its
// nominal position (frame k × N/2 × speed), shifted by up to ±seek samples
// to the place whose waveform best continues the previous frame (highest
// cross-correlation with the input that follows the previous frame), so
// periods are joined in phase and their length, the pitch, is kept.
//
// It streams: Process takes chunks of any size as they come and appends
// the output they make ready; Flush ends the input and appends the rest.
// Every decision depends only on the input samples and their positions,
// never on how the input was chunked, and the input is consumed as soon as
// the frames that need it are made, so the output of a chunked run is
// bit-identical to that of one call and the state is bounded (a few
// frames of input and one frame of output, allocated once by
// NewStretcher). The output of n input samples is round(n / speed)
// samples. At speed 1 it copies its input (bit-exact). A Stretcher is
// used by one goroutine.
type Stretcher struct {
	speed    float64
	n, hop   int // frame length N and output hop N/2
	seek     int // search half-width
	window   []float32
	passthru bool

	// in holds input samples [base, base+len(in)) of the virtual input,
	// which is hop zeros followed by the real input (so the first output
	// sample is under two overlapping frames, like every other).
	in   []float32
	base int64
	real int64 // real input samples received
	done bool  // Flush was called

	k      int64 // next frame to make
	prev   int64 // input position of frame k-1 (its natural continuation is prev+hop)
	acc    []float32
	outLen int64 // output samples emitted
}

// NewStretcher returns a Stretcher for a signal at rate Hz (frames and
// search scale with it) at speed in [MinSpeed, MaxSpeed].
func NewStretcher(rate int, speed float64) (*Stretcher, error) {
	if math.IsNaN(speed) || speed < MinSpeed || speed > MaxSpeed {
		return nil, fmt.Errorf("audio: speed %g outside [%g, %g]", speed, MinSpeed, MaxSpeed)
	}
	if rate < 1000 || rate > 384000 {
		return nil, fmt.Errorf("audio: stretch rate %d Hz outside [1000, 384000]", rate)
	}
	s := &Stretcher{speed: speed}
	if speed == 1 {
		s.passthru = true
		return s, nil
	}
	s.hop = rate * stretchFrameMS / 2000
	s.n = 2 * s.hop
	s.seek = rate * stretchSeekMS / 1000
	s.window = make([]float32, s.n)
	for i := range s.window {
		s.window[i] = float32(0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(s.n)))
	}
	// The live input spans from the lower of the next frame's natural
	// continuation and its search start to the end of its search: at most
	// one analysis hop (≤ 4 output hops) + 3·seek + N. Twice that leaves
	// room to take input in large pieces between compactions.
	span := 4*s.hop + 3*s.seek + s.n + 1
	s.in = make([]float32, s.hop, 2*span+4096)
	s.acc = make([]float32, s.n)
	s.prev = -int64(s.hop) // frame 0's natural continuation is position 0
	return s, nil
}

// Speed returns the speed the Stretcher was made for.
func (s *Stretcher) Speed() float64 { return s.speed }

// Process takes the next input samples and appends to dst the output they
// make ready, returning the extended dst. Reusing dst[:0] across calls
// makes it allocation-free once dst has grown.
func (s *Stretcher) Process(dst, in []float32) []float32 {
	if s.passthru {
		return append(dst, in...)
	}
	if s.done {
		return dst
	}
	for len(in) > 0 {
		room := cap(s.in) - len(s.in)
		if room == 0 {
			s.compact()
			room = cap(s.in) - len(s.in)
		}
		m := min(room, len(in))
		s.in = append(s.in, in[:m]...)
		s.real += int64(m)
		in = in[m:]
		dst = s.frames(dst)
		s.compact()
	}
	return dst
}

// Flush ends the input and appends the rest of the output to dst (past the
// input's end the frames read silence), so that the whole output is
// round(n / speed) samples for n input samples. The Stretcher takes no
// more input after it.
func (s *Stretcher) Flush(dst []float32) []float32 {
	if s.passthru || s.done {
		return dst
	}
	s.done = true
	dst = s.frames(dst)
	return dst
}

// total is the output length for the input received.
func (s *Stretcher) total() int64 {
	return int64(math.Round(float64(s.real) / s.speed))
}

// frames makes every frame whose input is all here (all of them after
// Flush, until the output is complete) and appends their finished samples.
func (s *Stretcher) frames(dst []float32) []float32 {
	end := s.base + int64(len(s.in)) // virtual input available
	for {
		if s.done && s.outLen >= s.total() {
			return dst
		}
		nominal := int64(math.Round(float64(s.k) * float64(s.hop) * s.speed))
		target := s.prev + int64(s.hop)
		lo, hi := nominal-int64(s.seek), nominal+int64(s.seek)
		if lo < 0 {
			lo = 0
		}
		if s.k == 0 {
			lo, hi = 0, 0 // the first frame is the start
		}
		if !s.done && (hi+int64(s.n) > end || target+int64(s.n) > end) {
			return dst
		}
		pos := lo
		if hi > lo {
			pos = s.best(target, nominal, lo, hi)
		}
		s.addFrame(pos)
		s.prev = pos
		s.k++
		dst = s.emit(dst)
	}
}

// at reads the virtual input at position p (zero outside what is held).
func (s *Stretcher) at(p int64) float32 {
	i := p - s.base
	if i < 0 || i >= int64(len(s.in)) {
		return 0
	}
	return s.in[i]
}

// slice returns the held input [p, p+n) when it is all held, else nil.
func (s *Stretcher) slice(p int64, n int) []float32 {
	i := p - s.base
	if i < 0 || i+int64(n) > int64(len(s.in)) {
		return nil
	}
	return s.in[i : i+int64(n)]
}

// best returns the position in [lo, hi] whose frame best continues the
// frame at target: the highest normalized cross-correlation
// ⟨target, candidate⟩ / (‖target‖ ‖candidate‖), less stretchPull times the
// distance from nominal in units of the search half-width (first maximum).
// Normalizing keeps the search from preferring loud candidates; the pull
// picks, among candidates that match equally (every period of a steady
// tone), the one nearest the nominal position, so the frames do not drift
// to one end of the search and a sound's edges stay where the speed puts
// them.
func (s *Stretcher) best(target, nominal, lo, hi int64) int64 {
	t := s.slice(target, s.n)
	var tn float64
	for j := 0; j < s.n; j++ {
		v := float64(s.at(target + int64(j)))
		tn += v * v
	}
	tn = math.Sqrt(tn)
	// energy of the candidate at p, kept by a sliding sum in float64
	var e float64
	for j := 0; j < s.n; j++ {
		v := float64(s.at(lo + int64(j)))
		e += v * v
	}
	bestPos, bestScore := lo, math.Inf(-1)
	for p := lo; p <= hi; p++ {
		if p > lo {
			out, in := float64(s.at(p-1)), float64(s.at(p+int64(s.n)-1))
			e += in*in - out*out
		}
		var c float32
		if c0 := s.slice(p, s.n); t != nil && c0 != nil {
			c = dot(t, c0)
		} else { // past the end of a flushed input: read with zeros
			for j := 0; j < s.n; j++ {
				c += s.at(target+int64(j)) * s.at(p+int64(j))
			}
		}
		score := float64(c)/(tn*math.Sqrt(max(e, 0))+1e-9) - stretchPull*math.Abs(float64(p-nominal))/float64(s.seek)
		if score > bestScore {
			bestPos, bestScore = p, score
		}
	}
	return bestPos
}

// addFrame overlap-adds the windowed input frame at pos into the output.
func (s *Stretcher) addFrame(pos int64) {
	if f := s.slice(pos, s.n); f != nil {
		for j, w := range s.window {
			s.acc[j] += w * f[j]
		}
		return
	}
	for j, w := range s.window {
		s.acc[j] += w * s.at(pos+int64(j))
	}
}

// emit appends the output hop that the last frame finished (the virtual
// output's first hop, under one frame only, is dropped; nothing past the
// total once flushed) and shifts the accumulator by a hop.
func (s *Stretcher) emit(dst []float32) []float32 {
	if s.k > 1 {
		m := int64(s.hop)
		if s.done {
			m = min(m, s.total()-s.outLen)
		}
		dst = append(dst, s.acc[:m]...)
		s.outLen += m
	}
	copy(s.acc, s.acc[s.hop:])
	clear(s.acc[s.n-s.hop:])
	return dst
}

// compact drops the input no future frame reads: below the lower of the
// next frame's natural continuation and its search start.
func (s *Stretcher) compact() {
	nominal := int64(math.Round(float64(s.k) * float64(s.hop) * s.speed))
	keep := min(s.prev+int64(s.hop), nominal-int64(s.seek))
	if keep <= s.base {
		return
	}
	drop := keep - s.base
	if drop > int64(len(s.in)) {
		drop = int64(len(s.in))
	}
	n := copy(s.in, s.in[drop:])
	s.in = s.in[:n]
	s.base += drop
}
