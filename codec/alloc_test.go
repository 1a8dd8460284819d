package codec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd/simdtest"
)

// TestDecodeBatchNoAllocs checks that a warm model decodes without
// allocating, for one stream, for streams of equal frame counts and for
// streams of unequal counts (the codec stage's usual batch: a first chunk
// beside later ones), also in several graph passes, at every kernel level
// and codec precision.
func TestDecodeBatchNoAllocs(t *testing.T) {
	simdtest.EachLevel(t, func(t *testing.T) {
		for _, prec := range codec.Precisions() {
			t.Run(prec, func(t *testing.T) {
				m := tinyModel(t, prec)
				r := rand.New(rand.NewPCG(1, 2))
				var ss []*codec.Stream
				for range 3 {
					s, err := m.NewStream()
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { s.Close() })
					ss = append(ss, s)
				}
				spf, size := m.SamplesPerFrame(), codec.TinyConfig().CodebookSize
				codes := [][][codec.Codebooks]int32{randomCodes(r, 2, size), randomCodes(r, 2, size), randomCodes(r, 3, size)}
				pcm := [][]float32{make([]float32, 2*spf), make([]float32, 2*spf), make([]float32, 3*spf)}
				if err := m.DecodeBatch(ss, codes, pcm); err != nil { // grows the scratch
					t.Fatal(err)
				}
				for _, c := range []struct {
					name string
					f    func() error
				}{
					{"unequal counts", func() error { return m.DecodeBatch(ss, codes, pcm) }},
					{"equal counts", func() error { return m.DecodeBatch(ss[:2], codes[:2], pcm[:2]) }},
					{"one stream", func() error { return ss[0].Decode(codes[0], pcm[0]) }},
					{"passes of 2 stream-frames", func() error {
						m.SetPassFrames(2)
						defer m.SetPassFrames(0)
						return m.DecodeBatch(ss, codes, pcm)
					}},
				} {
					var err error
					n := testing.AllocsPerRun(5, func() {
						if e := c.f(); e != nil {
							err = e
						}
					})
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if n != 0 {
						t.Errorf("DecodeBatch (%s) allocates %v times per call, want 0", c.name, n)
					}
				}
			})
		}
	})
}
