package codec_test

import (
	"errors"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// FuzzDecode feeds arbitrary codes and splits to a stream: codes outside the
// codebook must be refused with ErrCodes and leave the stream where it was;
// codes inside must decode, in the fuzzed split, to the samples of one call
// on a fresh stream (differential: split against whole).
func FuzzDecode(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, uint8(1))
	f.Add([]byte{200, 0, 23, 24, 255}, uint8(3))
	b := simd.NewBackend(1)
	defer b.Close()
	m, err := codec.NewSynthetic(codec.TinyConfig(), 5, b, "fp32")
	if err != nil {
		f.Fatal(err)
	}
	defer m.Close()
	size := m.Config().CodebookSize
	spf := m.SamplesPerFrame()
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		n := min(len(data)/codec.Codebooks, 8)
		codes := make([][codec.Codebooks]int32, n)
		bad := false
		for i := range codes {
			for k := range codes[i] {
				v := int32(data[i*codec.Codebooks+k]) - 8 // -8 .. 247: some out of range either side
				codes[i][k] = v
				bad = bad || v < 0 || int(v) >= size
			}
		}
		s, err := m.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pcm := make([]float32, n*spf)
		cut := 0
		if n > 0 {
			cut = int(split) % (n + 1)
		}
		err1 := s.Decode(codes[:cut], pcm[:cut*spf])
		err2 := s.Decode(codes[cut:], pcm[cut*spf:])
		if bad {
			if !errors.Is(err1, codec.ErrCodes) && !errors.Is(err2, codec.ErrCodes) {
				t.Fatalf("out-of-range codes accepted: %v, %v", err1, err2)
			}
			return
		}
		if err1 != nil || err2 != nil {
			t.Fatalf("valid codes refused: %v, %v", err1, err2)
		}
		whole, _ := m.NewStream()
		defer whole.Close()
		want := make([]float32, n*spf)
		if err := whole.Decode(codes, want); err != nil {
			t.Fatal(err)
		}
		if i := firstDiff(pcm, want); i >= 0 {
			t.Fatalf("split at %d of %d: sample %d = %v, one call %v", cut, n, i, pcm[i], want[i])
		}
	})
}
