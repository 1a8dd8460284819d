package codec_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// tinyModel returns the synthetic tiny codec on a fresh simd backend.
func tinyModel(t *testing.T, precision string) *codec.Model {
	t.Helper()
	b := simd.NewBackend(1)
	t.Cleanup(b.Close)
	m, err := codec.NewSynthetic(codec.TinyConfig(), 7, b, precision)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func randomCodes(r *rand.Rand, n, size int) [][codec.Codebooks]int32 {
	c := make([][codec.Codebooks]int32, n)
	for i := range c {
		for k := range c[i] {
			c[i][k] = int32(r.IntN(size))
		}
	}
	return c
}

// decodeSplit decodes codes on a new stream in pushes of the given sizes.
func decodeSplit(t *testing.T, m *codec.Model, s *codec.Stream, codes [][codec.Codebooks]int32, pushes []int) []float32 {
	t.Helper()
	spf := m.SamplesPerFrame()
	out := make([]float32, len(codes)*spf)
	at := 0
	for _, p := range pushes {
		if err := s.Decode(codes[at:at+p], out[at*spf:(at+p)*spf]); err != nil {
			t.Fatal(err)
		}
		at += p
	}
	if at != len(codes) {
		t.Fatalf("pushes cover %d of %d frames", at, len(codes))
	}
	return out
}

func randomPushes(r *rand.Rand, n int) []int {
	var p []int
	for n > 0 {
		k := 1 + r.IntN(min(n, 7))
		p = append(p, k)
		n -= k
	}
	return p
}

func firstDiff(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

func TestStreamingEqualsOneCall(t *testing.T) {
	for _, prec := range []string{"fp32", "bf16", "int8", "mixed"} {
		t.Run(prec, func(t *testing.T) {
			m := tinyModel(t, prec)
			r := rand.New(rand.NewPCG(1, 2))
			codes := randomCodes(r, 23, m.Config().CodebookSize)
			s, err := m.NewStream()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want := decodeSplit(t, m, s, codes, []int{len(codes)})
			nonzero := 0
			for _, v := range want {
				if v != 0 {
					nonzero++
				}
			}
			if nonzero < len(want)/2 {
				t.Fatalf("only %d of %d samples are nonzero", nonzero, len(want))
			}
			for trial := 0; trial < 12; trial++ {
				if err := s.Reset(); err != nil {
					t.Fatal(err)
				}
				pushes := randomPushes(r, len(codes))
				got := decodeSplit(t, m, s, codes, pushes)
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("pushes %v: sample %d = %v, one call gives %v", pushes, i, got[i], want[i])
				}
			}
		})
	}
}

func TestBatchEqualsSingle(t *testing.T) {
	m := tinyModel(t, "fp32")
	r := rand.New(rand.NewPCG(3, 4))
	const B, n = 3, 9
	spf := m.SamplesPerFrame()
	streams, codes, want := aloneStreams(t, m, r, B, n, []int{n})
	// Batched in pushes of 4, 1, 4 (and, for stream 1, 2+3+4: unequal counts).
	got := make([][]float32, B)
	for b := range got {
		got[b] = make([]float32, n*spf)
	}
	pushes := [][]int{{4, 1, 4}, {2, 3, 4}, {4, 1, 4}}
	at := make([]int, B)
	for step := 0; step < 3; step++ {
		cs := make([][][codec.Codebooks]int32, B)
		ps := make([][]float32, B)
		for b := range cs {
			p := pushes[b][step]
			cs[b] = codes[b][at[b] : at[b]+p]
			ps[b] = got[b][at[b]*spf : (at[b]+p)*spf]
			at[b] += p
		}
		if err := m.DecodeBatch(streams, cs, ps); err != nil {
			t.Fatal(err)
		}
	}
	for b := range got {
		if i := firstDiff(got[b], want[b]); i >= 0 {
			t.Fatalf("stream %d sample %d = %v, alone %v", b, i, got[b][i], want[b][i])
		}
	}
}

func TestCausality(t *testing.T) {
	m := tinyModel(t, "fp32")
	r := rand.New(rand.NewPCG(5, 6))
	codes := randomCodes(r, 14, m.Config().CodebookSize)
	s, _ := m.NewStream()
	defer s.Close()
	all := decodeSplit(t, m, s, codes, []int{14})
	for _, T := range []int{1, 4, 9} {
		s.Reset()
		part := decodeSplit(t, m, s, codes[:T], []int{T})
		if i := firstDiff(part, all[:len(part)]); i >= 0 {
			t.Fatalf("%d frames: sample %d = %v, of 14 frames %v", T, i, part[i], all[i])
		}
	}
}

func TestResetEqualsNewStream(t *testing.T) {
	m := tinyModel(t, "fp32")
	r := rand.New(rand.NewPCG(7, 8))
	a := randomCodes(r, 8, m.Config().CodebookSize)
	b := randomCodes(r, 6, m.Config().CodebookSize)
	s, _ := m.NewStream()
	defer s.Close()
	decodeSplit(t, m, s, a, []int{8})
	s.Reset()
	got := decodeSplit(t, m, s, b, []int{2, 4})
	fresh, _ := m.NewStream()
	defer fresh.Close()
	want := decodeSplit(t, m, fresh, b, []int{6})
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("after reset sample %d = %v, new stream %v", i, got[i], want[i])
	}
	if s.StateBytes() <= 0 || s.StateBytes() != fresh.StateBytes() {
		t.Fatalf("state bytes %d and %d", s.StateBytes(), fresh.StateBytes())
	}
}

func TestBadCodesRefused(t *testing.T) {
	m := tinyModel(t, "fp32")
	s, _ := m.NewStream()
	defer s.Close()
	spf := m.SamplesPerFrame()
	size := int32(m.Config().CodebookSize)
	r := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 200; trial++ {
		codes := randomCodes(r, 1+r.IntN(4), int(size))
		f, k := r.IntN(len(codes)), r.IntN(codec.Codebooks)
		bad := []int32{-1, size, size + int32(r.IntN(1000)), math.MinInt32, math.MaxInt32}[r.IntN(5)]
		codes[f][k] = bad
		pcm := make([]float32, len(codes)*spf)
		err := s.Decode(codes, pcm)
		if !errors.Is(err, codec.ErrCodes) {
			t.Fatalf("code %d at frame %d codebook %d: err = %v", bad, f, k, err)
		}
		if s.Frames() != 0 {
			t.Fatalf("a refused call advanced the stream to %d frames", s.Frames())
		}
	}
	if err := s.Decode(randomCodes(r, 2, int(size)), make([]float32, spf)); !errors.Is(err, codec.ErrArgs) {
		t.Fatalf("short PCM buffer: err = %v", err)
	}
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(11, 12)) }

// tinyModelSeed is tinyModel with another seed.
func tinyModelSeed(t *testing.T, seed uint64) *codec.Model {
	t.Helper()
	b := simd.NewBackend(1)
	t.Cleanup(b.Close)
	m, err := codec.NewSynthetic(codec.TinyConfig(), seed, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestDecodeBatchRefusesBadStreams(t *testing.T) {
	m := tinyModel(t, "fp32")
	spf := m.SamplesPerFrame()
	a, _ := m.NewStream()
	defer a.Close()
	closed, _ := m.NewStream()
	closed.Close()
	other := tinyModelSeed(t, 9)
	foreign, _ := other.NewStream()
	defer foreign.Close()
	one := randomCodes(newRand(), 1, m.Config().CodebookSize)
	for _, c := range []struct {
		what    string
		streams []*codec.Stream
	}{{"duplicate", []*codec.Stream{a, a}}, {"closed", []*codec.Stream{a, closed}}, {"foreign", []*codec.Stream{foreign}}, {"nil", []*codec.Stream{nil}}} {
		codes := make([][][codec.Codebooks]int32, len(c.streams))
		pcm := make([][]float32, len(c.streams))
		for i := range codes {
			codes[i], pcm[i] = one, make([]float32, spf)
		}
		if err := m.DecodeBatch(c.streams, codes, pcm); !errors.Is(err, codec.ErrArgs) {
			t.Errorf("%s stream: err = %v, want ErrArgs", c.what, err)
		}
	}
	if a.Frames() != 0 {
		t.Fatalf("refused calls advanced a stream to %d frames", a.Frames())
	}
	if err := m.DecodeBatch([]*codec.Stream{a}, nil, nil); !errors.Is(err, codec.ErrArgs) {
		t.Errorf("mismatched slices: err = %v", err)
	}
}

// TestPassesEqualOneCall decodes a 3-stream batch of 11 frames in graph
// passes of 1, 2, 3, 5 and 8 stream-frames and checks every stream's
// samples against the stream decoded alone one frame per call: the
// decoder is an exact stream, so the pass size must change no bit.
func TestPassesEqualOneCall(t *testing.T) {
	for _, prec := range []string{"fp32", "bf16"} {
		t.Run(prec, func(t *testing.T) {
			m := tinyModel(t, prec)
			r := rand.New(rand.NewPCG(5, 6))
			const B, n = 3, 11
			spf := m.SamplesPerFrame()
			ones := make([]int, n)
			for i := range ones {
				ones[i] = 1
			}
			streams, codes, want := aloneStreams(t, m, r, B, n, ones)
			for _, pass := range []int{1, 2, 3, 5, 8} {
				m.SetPassFrames(pass)
				got := make([][]float32, B)
				for b, s := range streams {
					if err := s.Reset(); err != nil {
						t.Fatal(err)
					}
					got[b] = make([]float32, n*spf)
				}
				if err := m.DecodeBatch(streams, codes, got); err != nil {
					t.Fatal(err)
				}
				for b := range got {
					if i := firstDiff(got[b], want[b]); i >= 0 {
						t.Fatalf("passes of %d: stream %d sample %d = %v, one frame per call gives %v", pass, b, i, got[b][i], want[b][i])
					}
				}
			}
			m.SetPassFrames(0)
			if m.PassFrames() != codec.DefaultPassFrames {
				t.Fatalf("PassFrames after SetPassFrames(0) = %d, want %d", m.PassFrames(), codec.DefaultPassFrames)
			}
		})
	}
}

// aloneStreams opens B streams (closed when the test ends), draws n random
// frames for each and decodes each stream on its own in the given pushes;
// it returns the streams reset, their codes and their samples.
func aloneStreams(t *testing.T, m *codec.Model, r *rand.Rand, B, n int, pushes []int) ([]*codec.Stream, [][][codec.Codebooks]int32, [][]float32) {
	t.Helper()
	var streams []*codec.Stream
	var codes [][][codec.Codebooks]int32
	var want [][]float32
	for b := 0; b < B; b++ {
		s, err := m.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		streams = append(streams, s)
		codes = append(codes, randomCodes(r, n, m.Config().CodebookSize))
		want = append(want, decodeSplit(t, m, s, codes[b], pushes))
		if err := s.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	return streams, codes, want
}

// TestPassHookOncePerPass: the pass hook runs before every graph pass: a
// 3-stream batch of 11 frames in passes of 6 stream-frames (2 frames of
// each stream) takes ⌈11 / 2⌉ = 6 passes; one stream alone in passes of 4
// takes ⌈11 / 4⌉ = 3.
func TestPassHookOncePerPass(t *testing.T) {
	m := tinyModel(t, "fp32")
	r := rand.New(rand.NewPCG(7, 8))
	streams, codes, _ := aloneStreams(t, m, r, 3, 11, []int{11})
	pcm := make([][]float32, 3)
	for b := range pcm {
		pcm[b] = make([]float32, 11*m.SamplesPerFrame())
	}
	calls := 0
	m.SetPassHook(func() { calls++ })
	defer m.SetPassHook(nil)
	m.SetPassFrames(6)
	if err := m.DecodeBatch(streams, codes, pcm); err != nil {
		t.Fatal(err)
	}
	if calls != 6 {
		t.Fatalf("3 streams × 11 frames in passes of 6 stream-frames: hook ran %d times, want 6", calls)
	}
	calls = 0
	m.SetPassFrames(4)
	if err := streams[0].Reset(); err != nil {
		t.Fatal(err)
	}
	if err := streams[0].Decode(codes[0], pcm[0]); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Fatalf("1 stream × 11 frames in passes of 4: hook ran %d times, want 3", calls)
	}
}
