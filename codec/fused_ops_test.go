package codec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// noResUnit hides a backend's ResUnit but keeps its other optional
// operations, so the decoder makes a residual unit's calls itself.
type noResUnit struct{ *simd.Backend }

// ResUnit hides simd.Backend's.
func (noResUnit) ResUnit() {}

// noSnakeConvT hides a backend's SnakeConvTranspose but keeps its other
// optional operations.
type noSnakeConvT struct{ *simd.Backend }

// SnakeConvTranspose hides simd.Backend's.
func (noSnakeConvT) SnakeConvTranspose() {}

// unfused hides both.
type unfused struct{ *simd.Backend }

// ResUnit hides simd.Backend's.
func (unfused) ResUnit() {}

// SnakeConvTranspose hides simd.Backend's.
func (unfused) SnakeConvTranspose() {}

// TestFusedOpsSameSamples: the decoder gives the same samples, bit for
// bit, whether its backend runs each residual unit in one call
// (ResUnitBackend) and each block's Snake and transposed conv in one
// (SnakeConvTransposeBackend), either or neither: their contracts, with
// the history and carry kept across calls. simd.Backend runs both fused in
// tiles of 6 rows on the VDPBF16PS path, so tile edges fall everywhere.
// Every precision, 2 streams of 9 frames in calls of 4 and 5.
func TestFusedOpsSameSamples(t *testing.T) {
	variants := []struct {
		name           string
		wrap           func(*simd.Backend) codec.Backend
		res, snakeConv bool
	}{
		{"unfused", func(b *simd.Backend) codec.Backend { return unfused{b} }, false, false},
		{"both", func(b *simd.Backend) codec.Backend { return b }, true, true},
		{"ResUnit", func(b *simd.Backend) codec.Backend { return noSnakeConvT{b} }, true, false},
		{"SnakeConvTranspose", func(b *simd.Backend) codec.Backend { return noResUnit{b} }, false, true},
	}
	for _, prec := range []string{"fp32", "bf16", "int8"} {
		var out [][][]float32
		for _, v := range variants {
			b := simd.NewBackend(2)
			t.Cleanup(b.Close)
			b.SetTileRows(6)
			be := v.wrap(b)
			_, res := be.(codec.ResUnitBackend)
			_, sc := be.(codec.SnakeConvTransposeBackend)
			if res != v.res || sc != v.snakeConv {
				t.Fatalf("%s: offers ResUnit %v, SnakeConvTranspose %v", v.name, res, sc)
			}
			m, err := codec.NewSynthetic(codec.TinyConfig(), 7, be, prec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			r := rand.New(rand.NewPCG(5, 6))
			var got [][]float32
			for s := 0; s < 2; s++ {
				st, err := m.NewStream()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				got = append(got, decodeSplit(t, m, st, randomCodes(r, 9, m.Config().CodebookSize), []int{4, 5}))
			}
			out = append(out, got)
		}
		for i := 1; i < len(out); i++ {
			for s := range out[0] {
				if d := firstDiff(out[0][s], out[i][s]); d >= 0 {
					t.Fatalf("%s stream %d: sample %d is %v %s, %v unfused", prec, s, d, out[i][s][d], variants[i].name, out[0][s][d])
				}
			}
		}
	}
}
