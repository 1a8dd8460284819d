package predictor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd/simdtest"
)

func loadTalker(t testing.TB, src predictor.Source, prec predictor.Precision, opts predictor.TalkerOptions) *predictor.Talker {
	t.Helper()
	b := newBackend(t)
	w, err := predictor.LoadTalkerWeights(src, b, prec)
	if err != nil {
		t.Fatalf("LoadTalkerWeights(%s): %v", prec, err)
	}
	t.Cleanup(w.Free)
	tk, err := predictor.NewTalker(w, opts)
	if err != nil {
		t.Fatalf("NewTalker: %v", err)
	}
	return tk
}

func randRows(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func near(got float32, want, tol float64) bool {
	return math.Abs(float64(got)-want) <= tol*math.Max(1, math.Abs(want))
}

func TestTalkerMatchesReference(t *testing.T) {
	for _, tc := range testSources(t) {
		t.Run(tc.name, func(t *testing.T) { testTalkerMatchesReference(t, tc.src) })
	}
}

func testTalkerMatchesReference(t *testing.T, src predictor.Source) {
	c := src.Config()
	H, V := c.Talker.Hidden, c.TalkerVocab
	dec := loadRefDecoder(t, src, "talker.model.", c.Talker)
	head := readMat(t, src, "talker.codec_head.weight", V, H)
	tk := loadTalker(t, src, predictor.FP32, predictor.TalkerOptions{MaxBatch: 1, MaxLen: 64})
	seq, err := tk.NewSequence(32)
	if err != nil {
		t.Fatal(err)
	}
	defer seq.Close()
	r := rand.New(rand.NewPCG(22, 1))
	const T, S = 7, 5
	prompt := randRows(r, T*H)
	steps := randRows(r, S*H)
	hidden, logits := make([]float32, H), make([]float32, V)
	var all [][]float64
	for i := 0; i < T+S; i++ {
		row := make([]float64, H)
		src := prompt
		j := i
		if i >= T {
			src, j = steps, i-T
		}
		for k := range row {
			row[k] = float64(src[j*H+k])
		}
		all = append(all, row)
	}
	want := dec.forward(all)
	check := func(at int) {
		t.Helper()
		for k := 0; k < H; k++ {
			if !near(hidden[k], want[at][k], 1e-4) {
				t.Fatalf("position %d hidden[%d] = %v, reference %v", at, k, hidden[k], want[at][k])
			}
		}
		wl := refLinear(head, want[at])
		for k := 0; k < V; k++ {
			if !near(logits[k], wl[k], 1e-4) {
				t.Fatalf("position %d logit %d = %v, reference %v", at, k, logits[k], wl[k])
			}
		}
	}
	if err := tk.Prefill(seq, prompt, hidden, logits); err != nil {
		t.Fatal(err)
	}
	check(T - 1)
	for s := 0; s < S; s++ {
		if err := tk.Decode([]*predictor.Sequence{seq}, steps[s*H:(s+1)*H], hidden, logits); err != nil {
			t.Fatal(err)
		}
		check(T + s)
	}
	if seq.Pos() != T+S {
		t.Errorf("Pos() = %d, want %d", seq.Pos(), T+S)
	}
}

func TestTalkerBatchedDecodeEqualsSingle(t *testing.T) {
	src := tinyModel(smallGeom, 23)
	c := src.Config()
	H, V := c.Talker.Hidden, c.TalkerVocab
	for _, prec := range []predictor.Precision{predictor.Int8, predictor.FP32} {
		tk := loadTalker(t, src, prec, predictor.TalkerOptions{MaxBatch: 3, MaxLen: 32})
		r := rand.New(rand.NewPCG(24, 1))
		// Three sequences with prompts of different lengths, decoded
		// together, against the same sequences decoded alone.
		lens := []int{3, 6, 1}
		prompts := make([][]float32, 3)
		for i, n := range lens {
			prompts[i] = randRows(r, n*H)
		}
		steps := randRows(r, 4*3*H)
		run := func(batched bool) [][]float32 {
			seqs := make([]*predictor.Sequence, 3)
			h, l := make([]float32, 3*H), make([]float32, 3*V)
			for i := range seqs {
				s, err := tk.NewSequence(16)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				seqs[i] = s
				if err := tk.Prefill(s, prompts[i], h[:H], l[:V]); err != nil {
					t.Fatal(err)
				}
			}
			var out [][]float32
			for step := 0; step < 4; step++ {
				in := steps[step*3*H : (step+1)*3*H]
				if batched {
					if err := tk.Decode(seqs, in, h, l); err != nil {
						t.Fatal(err)
					}
				} else {
					for i, s := range seqs {
						if err := tk.Decode([]*predictor.Sequence{s}, in[i*H:(i+1)*H], h[i*H:(i+1)*H], l[i*V:(i+1)*V]); err != nil {
							t.Fatal(err)
						}
					}
				}
				out = append(out, append(append([]float32(nil), h...), l...))
			}
			return out
		}
		a, b := run(true), run(false)
		for s := range a {
			for i := range a[s] {
				if a[s][i] != b[s][i] {
					t.Fatalf("%s step %d value %d: batched %v, single %v", prec, s, i, a[s][i], b[s][i])
				}
			}
		}
	}
}

func TestTalkerEmbeddings(t *testing.T) {
	src := tinyModel(projGeom, 25)
	c := src.Config()
	H, G := c.Talker.Hidden, c.CodeGroups
	tk := loadTalker(t, src, predictor.FP32, predictor.TalkerOptions{MaxBatch: 2, MaxLen: 16})
	talkerE := readMat(t, src, "talker.model.codec_embedding.weight", c.TalkerVocab, H)
	// Frame sum: codec_embedding[c0] + Σ cp.codec_embedding[g-1][c_g].
	codes := make([]int32, 2*G)
	for i := range codes {
		codes[i] = int32((i*37 + 5) % c.PredictorVocab)
	}
	codes[G] = int32(c.TalkerVocab - 1)
	out := make([]float32, 2*H)
	if err := tk.FrameEmbed(out, codes); err != nil {
		t.Fatal(err)
	}
	for b := 0; b < 2; b++ {
		want := append([]float64(nil), talkerE[codes[b*G]]...)
		for g := 1; g < G; g++ {
			tab := readMat(t, src, fmt.Sprintf("talker.code_predictor.model.codec_embedding.%d.weight", g-1), c.PredictorVocab, H)
			for k := range want {
				want[k] += tab[codes[b*G+g]][k]
			}
		}
		for k := 0; k < H; k++ {
			if !near(out[b*H+k], want[k], 1e-5) {
				t.Fatalf("FrameEmbed row %d [%d] = %v, want %v", b, k, out[b*H+k], want[k])
			}
		}
	}
	// Text path: fc2(silu(fc1(e) + b1)) + b2.
	emb := readMat(t, src, "talker.model.text_embedding.weight", c.TextVocab, c.TextHidden)
	fc1 := readMat(t, src, "talker.text_projection.linear_fc1.weight", c.TextHidden, c.TextHidden)
	b1 := readVec(t, src, "talker.text_projection.linear_fc1.bias", c.TextHidden)
	fc2 := readMat(t, src, "talker.text_projection.linear_fc2.weight", H, c.TextHidden)
	b2 := readVec(t, src, "talker.text_projection.linear_fc2.bias", H)
	ids := []int32{3, int32(c.TextVocab - 1), 0}
	text := make([]float32, len(ids)*H)
	if err := tk.TextEmbed(text, ids); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		h := refLinear(fc1, emb[id])
		for k := range h {
			h[k] += b1[k]
			h[k] = h[k] / (1 + math.Exp(-h[k]))
		}
		y := refLinear(fc2, h)
		for k := range y {
			if !near(text[i*H+k], y[k]+b2[k], 1e-5) {
				t.Fatalf("TextEmbed row %d [%d] = %v, want %v", i, k, text[i*H+k], y[k]+b2[k])
			}
		}
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"text id out of range", tk.TextEmbed(make([]float32, H), []int32{int32(c.TextVocab)})},
		{"codec id out of range", tk.CodecEmbed(make([]float32, H), []int32{int32(c.TalkerVocab)})},
		{"frame code out of range", tk.FrameEmbed(make([]float32, H), append([]int32{0}, make([]int32, G-2)...))},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestTalkerDecodeAllocatesNothing(t *testing.T) {
	simdtest.EachLevel(t, func(t *testing.T) {
		src := tinyModel(smallGeom, 27)
		c := src.Config()
		H, V := c.Talker.Hidden, c.TalkerVocab
		tk := loadTalker(t, src, predictor.Int8, predictor.TalkerOptions{MaxBatch: 2, MaxLen: 64})
		seqs := make([]*predictor.Sequence, 2)
		for i := range seqs {
			s, err := tk.NewSequence(64)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			seqs[i] = s
		}
		in, h, l := randRows(rand.New(rand.NewPCG(1, 2)), 2*H), make([]float32, 2*H), make([]float32, 2*V)
		if err := tk.Decode(seqs, in, h, l); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(10, func() {
			if err := tk.Decode(seqs, in, h, l); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("Decode allocates %v times per step, want 0", n)
		}
		// A full sequence is refused, not overrun.
		s, _ := tk.NewSequence(1)
		defer s.Close()
		if err := tk.Decode([]*predictor.Sequence{s}, in[:H], h[:H], l[:V]); err != nil {
			t.Fatal(err)
		}
		if err := tk.Decode([]*predictor.Sequence{s}, in[:H], h[:H], l[:V]); err == nil {
			t.Error("Decode past the sequence's max length: no error")
		}
		if err := tk.Decode([]*predictor.Sequence{seqs[0], seqs[0]}, in, h, l); err == nil {
			t.Error("Decode of one sequence twice in a batch: no error")
		}
	})
}
