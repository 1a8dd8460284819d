package codec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// primeThenDecode returns the samples of gen decoded on a new stream after
// the frames ref: the first skip of them advanced, the rest decoded and
// their samples dropped.
func primeThenDecode(t *testing.T, m *codec.Model, ref, gen [][codec.Codebooks]int32, skip int) []float32 {
	t.Helper()
	s, err := m.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Advance(ref[:skip]); err != nil {
		t.Fatal(err)
	}
	spf := m.SamplesPerFrame()
	decodeSplit(t, m, s, ref[skip:], []int{len(ref) - skip})
	if s.Frames() != len(ref) {
		t.Fatalf("after %d frames advanced and %d decoded the stream counts %d", skip, len(ref)-skip, s.Frames())
	}
	out := make([]float32, len(gen)*spf)
	if err := s.Decode(gen, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAdvanceThenLookbackEqualsDecode checks Advance against its
// definition, decoding every frame: a reference of R frames whose first
// R − LookbackFrames() are advanced and the rest decoded leaves a state
// whose next samples are those of decoding all R, bit for bit, at every
// precision (and with the reference advanced in pieces); decoding only
// half as many frames after the advance gives other samples, so the
// comparison can fail and the bound is not vacuous.
func TestAdvanceThenLookbackEqualsDecode(t *testing.T) {
	for _, prec := range []string{"fp32", "bf16", "int8", "mixed"} {
		t.Run(prec, func(t *testing.T) {
			m := tinyModel(t, prec)
			r := rand.New(rand.NewPCG(11, 12))
			N := m.LookbackFrames()
			const R, G = 40, 9
			size := m.Config().CodebookSize
			ref, gen := randomCodes(r, R, size), randomCodes(r, G, size)
			all := append(append([][codec.Codebooks]int32{}, ref...), gen...)
			s, err := m.NewStream()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want := decodeSplit(t, m, s, all, []int{len(all)})[R*m.SamplesPerFrame():]
			got := primeThenDecode(t, m, ref, gen, R-N)
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("%d frames advanced, %d decoded: sample %d after the reference = %v, decoding all gives %v", R-N, N, i, got[i], want[i])
			}
			short := primeThenDecode(t, m, ref, gen, R-N/2)
			if firstDiff(short, want) < 0 {
				t.Fatalf("%d frames advanced, only %d decoded, still gave the samples of decoding all: the comparison cannot tell", R-N/2, N/2)
			}
			// The advance in pieces, as core primes (25 frames a call).
			s2, err := m.NewStream()
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			for _, p := range [][2]int{{0, 3}, {3, 10}, {10, R - N}} {
				if err := s2.Advance(ref[p[0]:p[1]]); err != nil {
					t.Fatal(err)
				}
			}
			decodeSplit(t, m, s2, ref[R-N:], []int{N})
			out := make([]float32, G*m.SamplesPerFrame())
			if err := s2.Decode(gen, out); err != nil {
				t.Fatal(err)
			}
			if i := firstDiff(out, want); i >= 0 {
				t.Fatalf("advanced in pieces: sample %d = %v, decoding all gives %v", i, out[i], want[i])
			}
		})
	}
}

// TestAdvanceRealGeometry is TestAdvanceThenLookbackEqualsDecode's
// equality on the real geometry (its own LookbackFrames, 11), at the
// precision a CPU with AVX-512 BF16 and VNNI decodes with by default.
func TestAdvanceRealGeometry(t *testing.T) {
	if testing.Short() {
		t.Skip("real geometry: seconds")
	}
	b := simd.NewBackend(0)
	defer b.Close()
	m, err := codec.NewSynthetic(codec.RealConfig(), 7, b, "bf16+res=int8")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	N := m.LookbackFrames()
	if N != 11 {
		t.Errorf("LookbackFrames() = %d at the real geometry, want 11 (histories summing to 9.4 frames, rounded up, plus one)", N)
	}
	r := rand.New(rand.NewPCG(13, 14))
	R, G := N+4, 2
	ref, gen := randomCodes(r, R, m.Config().CodebookSize), randomCodes(r, G, m.Config().CodebookSize)
	s, err := m.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := decodeSplit(t, m, s, append(append([][codec.Codebooks]int32{}, ref...), gen...), []int{R + G})[R*m.SamplesPerFrame():]
	if i := firstDiff(primeThenDecode(t, m, ref, gen, R-N), want); i >= 0 {
		t.Fatalf("sample %d after the reference differs from decoding all", i)
	}
}

// TestAdvanceRefusals checks that Advance refuses what Decode refuses,
// naming it, and moves nothing.
func TestAdvanceRefusals(t *testing.T) {
	m := tinyModel(t, "fp32")
	s, err := m.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	bad := make([][codec.Codebooks]int32, 2)
	bad[1][3] = int32(m.Config().CodebookSize)
	if err := s.Advance(bad); err == nil || s.Frames() != 0 {
		t.Fatalf("Advance of an out-of-range code: error %v, %d frames", err, s.Frames())
	}
	s.Close()
	if err := s.Advance(bad[:1]); err == nil {
		t.Fatal("Advance on a closed stream gave no error")
	}
}
