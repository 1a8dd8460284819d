package predictor_test

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// familyBackend uploads int8 matrices in int8 only when their family
// (qkv, o, gateup, down, head) and layer are selected, fp32 otherwise: it
// attributes the int8 error to one matrix family or layer at a time.
type familyBackend struct {
	*simd.Backend
	g      predictor.DecoderConfig
	vocab  int
	family string // "" : every family
	layer  int    // -1: every layer
	cur    int    // layer of the last qkv seen
	wonly  bool   // selected matrices: int8 weights, fp32 activations
}

// fakeQuantRows quantizes each row of w as the backend does (orthonormal
// Hadamard in blocks of the largest power of two ≤ 64 dividing cols, int8
// per block of 32, absmax/127) and undoes both, leaving the weight error
// alone.
func fakeQuantRows(w []float32, rows, cols int) {
	n := 1
	for n < 64 && cols%(2*n) == 0 {
		n *= 2
	}
	had := func(v []float64) {
		for h := 1; h < len(v); h *= 2 {
			for i := 0; i < len(v); i += 2 * h {
				for j := i; j < i+h; j++ {
					v[j], v[j+h] = v[j]+v[j+h], v[j]-v[j+h]
				}
			}
		}
		s := 1 / math.Sqrt(float64(len(v)))
		for i := range v {
			v[i] *= s
		}
	}
	v := make([]float64, cols)
	for r := 0; r < rows; r++ {
		row := w[r*cols : (r+1)*cols]
		for i, x := range row {
			v[i] = float64(x)
		}
		for b := 0; b < cols; b += n {
			had(v[b : b+n])
		}
		for b := 0; b < cols; b += 32 {
			blk := v[b:min(b+32, cols)]
			m := 0.0
			for _, x := range blk {
				m = math.Max(m, math.Abs(x))
			}
			if m == 0 {
				continue
			}
			sc := float64(float32(m / 127))
			for i, x := range blk {
				blk[i] = math.RoundToEven(x/sc) * sc
			}
		}
		for b := 0; b < cols; b += n {
			had(v[b : b+n])
		}
		for i, x := range v {
			row[i] = float32(x)
		}
	}
}

// kind names the family of a rows×cols predictor matrix by its shape.
func (f *familyBackend) kind(rows, cols int) string {
	qw, kvw := f.g.Heads*f.g.HeadDim, f.g.KVHeads*f.g.HeadDim
	switch {
	case rows == qw+2*kvw && cols == f.g.Hidden:
		return "qkv"
	case rows == f.g.Hidden && cols == qw:
		return "o"
	case rows == 2*f.g.Intermediate && cols == f.g.Hidden:
		return "gateup"
	case rows == f.g.Hidden && cols == f.g.Intermediate:
		return "down"
	case rows == f.vocab && cols == f.g.Hidden:
		return "head"
	}
	return "other"
}

func (f *familyBackend) NewMatrix(rows, cols int, data, bias []float32, precision string) (int32, error) {
	k := f.kind(rows, cols)
	if k == "qkv" {
		f.cur++
	}
	if precision == "int8" && f.wonly && (f.family == "" || f.family == k) {
		w := make([]float32, len(data))
		copy(w, data)
		fakeQuantRows(w, rows, cols)
		return f.Backend.NewMatrix(rows, cols, w, bias, "fp32")
	}
	if precision == "int8" {
		keep := (f.family == "" || f.family == k) && (f.layer < 0 || k == "head" || f.layer == f.cur)
		if !keep {
			precision = "fp32"
		}
	}
	return f.Backend.NewMatrix(rows, cols, data, bias, precision)
}

// BenchmarkInt8Attribution is a measurement, not a test: it attributes the
// code predictor's int8 error (against fp32, on the inputs of fidelityOn:
// 7 frames × 2 rows × 15 sub-steps) to one matrix family or one layer at a
// time, and reports each selection's top-1 agreement and mean KL as the
// metrics top1 and kl. Sub-benchmarks:
//
//	family=F           int8 in family F only (qkv, o, gateup, down, head)
//	family=F/weights   F's weights quantized and dequantized, fp32 activations
//	layer=L            int8 in layer L only (and the heads)
//	all, all/weights   every family
//
// Each selection loads the model twice, so run one at a time with one
// iteration, e.g.
//
//	go test -run '^$' -bench 'Int8Attribution/family=down' -benchtime 1x ./predictor
//
// OMNI_FIDELITY_MODEL picks the model (default synth:0.6b+outliers). It
// replaces TestFidelityDiagnose, a test that only logged; a command (an
// "omni model diagnose", say) can lift the selections into an exported
// function of a package that may import simd once one is wanted.
func BenchmarkInt8Attribution(b *testing.B) {
	if testing.Short() {
		b.Skip("loads the 0.6B predictor twice per selection")
	}
	spec := os.Getenv("OMNI_FIDELITY_MODEL")
	if spec == "" {
		spec = "synth:0.6b+outliers"
	}
	src, err := predictor.OpenModel(spec)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	c := src.Config()
	type sel struct {
		name   string
		family string // "": every family
		layer  int    // -1: every layer
		wonly  bool
	}
	sels := []sel{{"all", "", -1, false}, {"all/weights", "", -1, true}}
	for _, f := range []string{"qkv", "o", "gateup", "down", "head"} {
		sels = append(sels, sel{"family=" + f, f, -1, false}, sel{"family=" + f + "/weights", f, -1, true})
	}
	for l := 0; l < c.Predictor.Layers; l++ {
		sels = append(sels, sel{"layer=" + strconv.Itoa(l), "", l, false})
	}
	for _, s := range sels {
		b.Run(s.name, func(b *testing.B) {
			var p predictor.Parity
			for range b.N {
				p = fidelityOn(b, src, predictor.Int8, 7, 2, func(sb *simd.Backend) predictor.Backend {
					return &familyBackend{Backend: sb, g: c.Predictor, vocab: c.PredictorVocab, family: s.family, layer: s.layer, cur: -1, wonly: s.wonly}
				})
			}
			b.ReportMetric(p.Top1(), "top1")
			b.ReportMetric(p.MeanKL(), "kl")
		})
	}
}
