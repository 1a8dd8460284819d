package codec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// noResUnit hides a backend's ResUnit but keeps its other optional
// operations (ConvAdd, AddTo), so the decoder makes a residual unit's
// calls itself.
type noResUnit struct{ *simd.Backend }

// ResUnit hides simd.Backend's.
func (noResUnit) ResUnit() {}

// TestResUnitSameSamples: the decoder gives the same samples, bit for bit,
// whether its backend runs each residual unit in one call (simd.Backend's
// ResUnit, fused in tiles of 6 rows on the VDPBF16PS path, so tile edges
// fall everywhere) or the decoder makes the unit's calls: the
// ResUnitBackend contract, with the units' history carried across calls.
// Every precision, 2 streams of 9 frames in calls of 4 and 5.
func TestResUnitSameSamples(t *testing.T) {
	for _, prec := range []string{"fp32", "bf16", "int8"} {
		var out [2][][]float32
		for i := range out {
			b := simd.NewBackend(2)
			t.Cleanup(b.Close)
			b.SetResUnitTile(6)
			var be codec.Backend = b
			if i == 1 {
				be = noResUnit{b}
			}
			if _, ok := be.(codec.ResUnitBackend); ok != (i == 0) {
				t.Fatalf("backend %d offers ResUnit: %v", i, ok)
			}
			m, err := codec.NewSynthetic(codec.TinyConfig(), 7, be, prec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			r := rand.New(rand.NewPCG(5, 6))
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
				t.Fatalf("%s stream %d: sample %d is %v with ResUnit, %v without", prec, s, d, out[0][s][d], out[1][s][d])
			}
		}
	}
}
