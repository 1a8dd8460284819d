package codec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// bareBackend hides a backend's optional operations (ConvAdd, AddTo), so
// the decoder runs its own conv-then-add.
type bareBackend struct{ codec.Backend }

// TestConvAddSameSamples: the decoder gives the same samples, bit for bit,
// whether its backend fuses the residual units' second conv with their add
// (simd.Backend's ConvAdd, fused on the VDPBF16PS path) or not: the
// ConvAddBackend contract. Every precision, 2 streams of 9 frames.
func TestConvAddSameSamples(t *testing.T) {
	for _, prec := range []string{"fp32", "bf16", "int8"} {
		var out [2][][]float32
		for i := range out {
			b := simd.NewBackend(2)
			t.Cleanup(b.Close)
			var be codec.Backend = b
			if i == 1 {
				be = bareBackend{b}
			}
			m, err := codec.NewSynthetic(codec.TinyConfig(), 7, be, prec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			r := rand.New(rand.NewPCG(3, 4))
			for s := 0; s < 2; s++ {
				st, err := m.NewStream()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				out[i] = append(out[i], decodeSplit(t, m, st, randomCodes(r, 9, m.Config().CodebookSize), []int{4, 5}))
			}
		}
		for s := range out[0] {
			if d := firstDiff(out[0][s], out[1][s]); d >= 0 {
				t.Fatalf("%s stream %d: sample %d is %v with ConvAdd, %v without", prec, s, d, out[0][s][d], out[1][s][d])
			}
		}
	}
}
