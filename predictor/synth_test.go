package predictor

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func mustSynth(t testing.TB, size string, outliers bool, seed uint64) Source {
	t.Helper()
	s, err := NewSynth(size, outliers, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readAll(t testing.TB, src Source, name string) []float32 {
	t.Helper()
	for _, ti := range src.Tensors() {
		if ti.Name == name {
			dst := make([]float32, ti.Elems())
			if err := src.ReadF32(name, dst); err != nil {
				t.Fatal(err)
			}
			return dst
		}
	}
	t.Fatalf("no tensor %s", name)
	return nil
}

func meanStd(v []float32) (float64, float64) {
	var s, ss float64
	for _, x := range v {
		s += float64(x)
	}
	m := s / float64(len(v))
	for _, x := range v {
		ss += (float64(x) - m) * (float64(x) - m)
	}
	return m, math.Sqrt(ss / float64(len(v)))
}

func TestSynthDeterminism(t *testing.T) {
	a, b, c := mustSynth(t, "tiny", false, 7), mustSynth(t, "tiny", false, 7), mustSynth(t, "tiny", false, 8)
	const q = "talker.model.layers.0.self_attn.q_proj.weight"
	qa, qb, qc := readAll(t, a, q), readAll(t, b, q), readAll(t, c, q)
	if !slices.Equal(qa, qb) {
		t.Error("same seed gave different q_proj values")
	}
	same := 0
	for i := range qa {
		if qa[i] == qc[i] {
			same++
		}
	}
	if same > len(qa)/100 {
		t.Errorf("seeds 7 and 8 agree on %d of %d q_proj values", same, len(qa))
	}
	// Different names, same shape: different values.
	qb1 := readAll(t, a, "talker.model.layers.1.self_attn.q_proj.weight")
	same = 0
	for i := range qa {
		if qa[i] == qb1[i] {
			same++
		}
	}
	if same > len(qa)/100 {
		t.Errorf("layers 0 and 1 q_proj agree on %d of %d values", same, len(qa))
	}
	// Rows on demand equal the same rows of the whole tensor.
	const emb = "talker.code_predictor.model.codec_embedding.3.weight"
	whole := readAll(t, a, emb)
	rows := make([]float32, 3*64)
	if err := a.ReadRowsF32(emb, 2045, 3, rows); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, whole[2045*64:2048*64]) {
		t.Error("ReadRowsF32(2045, 3) differs from rows 2045..2047 of ReadF32")
	}
	if err := a.ReadRowsF32(emb, 2046, 3, rows); !errors.Is(err, ErrShape) {
		t.Errorf("ReadRowsF32 past the end err = %v, want ErrShape", err)
	}
	// A text-embedding row of the 0.6B, without materialising the table.
	big := mustSynth(t, "0.6b", false, 7)
	r1, r2 := make([]float32, 2048), make([]float32, 2048)
	big.ReadRowsF32("talker.model.text_embedding.weight", 151935, 1, r1)
	mustSynth(t, "0.6b", false, 7).ReadRowsF32("talker.model.text_embedding.weight", 151935, 1, r2)
	if !slices.Equal(r1, r2) {
		t.Error("0.6B text embedding row 151935 differs between two builds with seed 7")
	}
	if err := a.ReadF32("nope", nil); !errors.Is(err, ErrNoTensor) || !strings.Contains(err.Error(), "synth:tiny@7") {
		t.Errorf("ReadF32(nope) err = %v", err)
	}
	a.Close()
	if err := a.ReadF32(q, qa); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadF32 after Close err = %v, want ErrClosed", err)
	}
}

// TestSynthScales checks each tensor family's statistics against the scales
// documented in synth.go, computed here from the shapes.
func TestSynthScales(t *testing.T) {
	tiny, big := mustSynth(t, "tiny", false, 1), mustSynth(t, "0.6b", false, 1)
	cfg := tiny.Config()
	for _, c := range []struct {
		src       Source
		name      string
		mean, std float64
	}{
		{tiny, "talker.model.layers.1.self_attn.k_proj.weight", 0, 1 / math.Sqrt(64)},
		{tiny, "talker.model.layers.1.mlp.down_proj.weight", 0, 1 / math.Sqrt(128) / math.Sqrt(2*float64(cfg.Talker.Layers))},
		{tiny, "talker.codec_head.weight", 0, 1.5 / math.Sqrt(64)},
		{tiny, "talker.code_predictor.lm_head.7.weight", 0, 1.5 / math.Sqrt(64)},
		{tiny, "talker.model.codec_embedding.weight", 0, 0.5},
		{big, "talker.model.layers.3.self_attn.o_proj.weight", 0, 1 / math.Sqrt(2048) / math.Sqrt(56)},
		{big, "talker.text_projection.linear_fc1.bias", 0, 0.02},
		{big, "talker.model.layers.0.input_layernorm.weight", 1, 0.05},
		{big, "talker.code_predictor.model.layers.2.self_attn.q_norm.weight", 1, 0.05},
	} {
		m, s := meanStd(readAll(t, c.src, c.name))
		if math.Abs(m-c.mean) > 0.1*c.std+1e-3 || math.Abs(s-c.std) > 0.15*c.std {
			t.Errorf("%s: mean %.4f std %.4f, want %.4f and %.4f", c.name, m, s, c.mean, c.std)
		}
	}
	// The generator itself: unit variance, zero mean, bounded.
	var v []float32
	key := nameKey(3, "x")
	for i := uint64(0); i < 200000; i++ {
		v = append(v, normalish(key, i))
	}
	m, s := meanStd(v)
	if math.Abs(m) > 0.01 || math.Abs(s-1) > 0.01 {
		t.Errorf("normalish: mean %.4f std %.4f, want 0 and 1", m, s)
	}
	if lo, hi := slices.Min(v), slices.Max(v); lo < -3.47 || hi > 3.47 {
		t.Errorf("normalish range [%g, %g] exceeds ±√12", lo, hi)
	}
}

func TestSynthOutliers(t *testing.T) {
	plain, out := mustSynth(t, "tiny", false, 5), mustSynth(t, "tiny", true, 5)
	big := func(v []float32) []int {
		var idx []int
		for i, x := range v {
			if x >= 20 && x <= 60 {
				idx = append(idx, i)
			} else if x < 0.7 || x > 1.3 {
				t.Errorf("non-outlier gain %g at %d outside 1 ± 0.3", x, i)
			}
		}
		return idx
	}
	for _, stack := range []string{"talker.model.", "talker.code_predictor.model."} {
		var first []int
		for _, n := range []string{"layers.0.input_layernorm.weight", "layers.0.post_attention_layernorm.weight",
			"layers.1.input_layernorm.weight", "norm.weight"} {
			name := stack + n
			if idx := big(readAll(t, plain, name)); len(idx) != 0 {
				t.Errorf("%s without +outliers has outliers at %v", name, idx)
			}
			idx := big(readAll(t, out, name))
			if len(idx) != synthOutliers {
				t.Errorf("%s: %d outlier channels %v, want %d", name, len(idx), idx, synthOutliers)
			}
			if first == nil {
				first = idx
			} else if !slices.Equal(idx, first) {
				t.Errorf("%s outlier channels %v differ from the stack's %v", name, idx, first)
			}
		}
		if idx := big(readAll(t, out, stack+"layers.0.self_attn.q_norm.weight")); len(idx) != 0 {
			t.Errorf("q_norm has outliers at %v", idx)
		}
	}
	// Matrices are the same with or without outliers.
	const w = "talker.model.layers.0.mlp.up_proj.weight"
	if !slices.Equal(readAll(t, plain, w), readAll(t, out, w)) {
		t.Error("+outliers changed a matrix")
	}
}

// TestSynth06BAll reads every tensor of the 0.6B synthetic model once (the
// loader's path) and checks every value is finite. Skipped with -short.
func TestSynth06BAll(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 0.9 B synthetic weights")
	}
	src := mustSynth(t, "0.6b", true, 1)
	var buf []float32
	var total int64
	for _, ti := range src.Tensors() {
		buf = slices.Grow(buf[:0], int(ti.Elems()))[:ti.Elems()]
		if err := src.ReadF32(ti.Name, buf); err != nil {
			t.Fatal(err)
		}
		for i, v := range buf {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s[%d] = %g", ti.Name, i, v)
			}
		}
		total += ti.Elems()
	}
	if total < 900e6 {
		t.Errorf("read %d values, want ≈ 905.7 M", total)
	}
}

// TestSynthFillMatchesNormalish checks the inlined generator loop against
// the plain per-element definition.
func TestSynthFillMatchesNormalish(t *testing.T) {
	sp := &synthSpec{key: nameKey(9, "w"), base: 0.25, std: 0.5}
	dst := make([]float32, 1000)
	sp.fill(dst, 12345)
	for i, v := range dst {
		if want := 0.25 + 0.5*normalish(sp.key, uint64(12345+i)); math.Abs(float64(v-want)) > 1e-6 {
			t.Fatalf("fill[%d] = %g, want %g", i, v, want)
		}
	}
}

// TestSynthLogitsNotDegenerate applies the 0.6B predictor's final norm and
// one lm head to a unit-RMS hidden state, written plainly here, and checks
// the logits are finite, spread (std between 0.5 and 10) and not one-hot
// (top softmax probability below 0.99), with and without outliers.
func TestSynthLogitsNotDegenerate(t *testing.T) {
	for _, outliers := range []bool{false, true} {
		src := mustSynth(t, "0.6b", outliers, 2)
		gain := readAll(t, src, "talker.code_predictor.model.norm.weight")
		head := readAll(t, src, "talker.code_predictor.lm_head.4.weight")
		h := make([]float64, len(gain))
		var ss float64
		key := nameKey(11, "hidden")
		for i := range h {
			h[i] = float64(normalish(key, uint64(i)))
			ss += h[i] * h[i]
		}
		rms := math.Sqrt(ss/float64(len(h)) + 1e-6)
		for i := range h {
			h[i] = h[i] / rms * float64(gain[i])
		}
		logits := make([]float32, 2048)
		for r := range logits {
			var acc float64
			for c, x := range h {
				acc += float64(head[r*len(h)+c]) * x
			}
			logits[r] = float32(acc)
		}
		_, sd := meanStd(logits)
		mx := float64(slices.Max(logits))
		var z float64
		for _, l := range logits {
			z += math.Exp(float64(l) - mx)
		}
		top := 1 / z
		t.Logf("outliers=%v: logit std %.2f, top probability %.3f", outliers, sd, top)
		if math.IsNaN(sd) || sd < 0.5 || sd > 10 || top > 0.99 {
			t.Errorf("outliers=%v: logit std %.2f, top probability %.3f: degenerate", outliers, sd, top)
		}
	}
}

// TestSynthParallelFillIsSerial: a whole-tensor read (filled on all cores)
// gives the values of row reads of the same tensor (filled on one).
func TestSynthParallelFillIsSerial(t *testing.T) {
	src, err := NewSynth("tiny", true, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range src.Tensors() {
		if ti.Elems() < 1<<17 || len(ti.Shape) != 2 {
			continue
		}
		whole := make([]float32, ti.Elems())
		if err := src.ReadF32(ti.Name, whole); err != nil {
			t.Fatal(err)
		}
		cols := ti.Shape[1]
		row := make([]float32, cols)
		for r := 0; r < ti.Shape[0]; r++ {
			if err := src.ReadRowsF32(ti.Name, r, 1, row); err != nil {
				t.Fatal(err)
			}
			for c, v := range row {
				if whole[r*cols+c] != v {
					t.Fatalf("%s[%d][%d] = %v whole, %v by row", ti.Name, r, c, whole[r*cols+c], v)
				}
			}
		}
		return
	}
	t.Fatal("no tensor of synth:tiny is big enough to be filled in parallel")
}
