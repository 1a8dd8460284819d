package predictor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd/simdtest"
)

// TestTalkerPrefillBatchEqualsSeparate checks that one batched prefill of
// several prompts — more rows in all than one pass takes, so a prompt spans
// two passes — gives bit for bit the hidden states, logits and caches of
// separate Prefill calls (the caches through two decode steps after it),
// in fp32 and int8, on a random tiny model and synth:tiny.
func TestTalkerPrefillBatchEqualsSeparate(t *testing.T) {
	srcs := testSources(t)
	for _, tc := range srcs {
		if tc.name != "identity" && tc.name != "synth:tiny" {
			continue
		}
		for _, prec := range []predictor.Precision{predictor.FP32, predictor.Int8} {
			t.Run(tc.name+"/"+prec.String(), func(t *testing.T) { testPrefillBatch(t, tc.src, prec) })
		}
	}
}

func testPrefillBatch(t *testing.T, src predictor.Source, prec predictor.Precision) {
	c := src.Config()
	H, V := c.Talker.Hidden, c.TalkerVocab
	const B = 4
	lens := []int{7, 1, predictor.PrefillPassRows + 6, 30} // 7+1+70 crosses the first pass
	r := rand.New(rand.NewPCG(31, uint64(prec)))
	var all []float32
	for _, n := range lens {
		all = append(all, randRows(r, n*H)...)
	}
	// A second, short prefill continuing each sequence, then decode steps.
	more := []int{2, 3, 1, 1}
	var all2 []float32
	for _, n := range more {
		all2 = append(all2, randRows(r, n*H)...)
	}
	steps := randRows(r, 2*B*H)
	run := func(batched bool) []float32 {
		tk := loadTalker(t, src, prec, predictor.TalkerOptions{MaxBatch: B, MaxLen: 128})
		seqs := make([]*predictor.Sequence, B)
		for i := range seqs {
			s, err := tk.NewSequence(100)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			seqs[i] = s
		}
		h, l := make([]float32, B*H), make([]float32, B*V)
		var out []float32
		for _, p := range []struct {
			rows []int
			x    []float32
		}{{lens, all}, {more, all2}} {
			if batched {
				if err := tk.PrefillBatch(seqs, p.rows, p.x, h, l); err != nil {
					t.Fatal(err)
				}
			} else {
				off := 0
				for i, s := range seqs {
					n := p.rows[i]
					if err := tk.Prefill(s, p.x[off*H:(off+n)*H], h[i*H:(i+1)*H], l[i*V:(i+1)*V]); err != nil {
						t.Fatal(err)
					}
					off += n
				}
			}
			out = append(append(out, h...), l...)
		}
		for i, s := range seqs {
			if want := lens[i] + more[i]; s.Pos() != want {
				t.Fatalf("sequence %d at position %d after the prefills, want %d", i, s.Pos(), want)
			}
		}
		for k := 0; k < 2; k++ {
			if err := tk.Decode(seqs, steps[k*B*H:(k+1)*B*H], h, l); err != nil {
				t.Fatal(err)
			}
			out = append(append(out, h...), l...)
		}
		return out
	}
	got, want := run(true), run(false)
	if len(got) != len(want) {
		t.Fatalf("batched %d values, separate %d", len(got), len(want))
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("value %d: batched %v, separate %v", i, got[i], want[i])
		}
	}
}

func TestTalkerPrefillBatchAllocatesNothing(t *testing.T) {
	simdtest.EachLevel(t, func(t *testing.T) {
		src := tinyModel(smallGeom, 29)
		c := src.Config()
		H, V := c.Talker.Hidden, c.TalkerVocab
		const B = 3
		tk := loadTalker(t, src, predictor.Int8, predictor.TalkerOptions{MaxBatch: B, MaxLen: 128})
		seqs := make([]*predictor.Sequence, B)
		for i := range seqs {
			s, err := tk.NewSequence(128)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			seqs[i] = s
		}
		x := randRows(rand.New(rand.NewPCG(3, 4)), 100*H)
		h, l := make([]float32, B*H), make([]float32, B*V)
		prefill := func(rows []int) {
			n := 0
			for i, s := range seqs {
				s.Reset()
				n += rows[i]
			}
			if err := tk.PrefillBatch(seqs, rows, x[:n*H], h, l); err != nil {
				t.Fatal(err)
			}
		}
		prefill([]int{40, 50, 10}) // warm-up: a full pass
		shapes := [][]int{{40, 50, 10}, {1, 1, 1}, {90, 5, 5}, {20, 3, 64}}
		k := 0
		n := testing.AllocsPerRun(8, func() {
			prefill(shapes[k%len(shapes)])
			k++
		})
		if n != 0 {
			t.Errorf("PrefillBatch allocates %v times per call after warm-up, want 0", n)
		}
	})
}

func TestTalkerPrefillBatchRefusesBadCalls(t *testing.T) {
	src := tinyModel(smallGeom, 30)
	c := src.Config()
	H, V := c.Talker.Hidden, c.TalkerVocab
	tk := loadTalker(t, src, predictor.FP32, predictor.TalkerOptions{MaxBatch: 2, MaxLen: 64})
	a, err := tk.NewSequence(8)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := tk.NewSequence(8)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := tk.NewSequence(8)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	x := make([]float32, 20*H)
	h, l := make([]float32, 3*H), make([]float32, 3*V)
	ab := []*predictor.Sequence{a, b}
	cases := []struct {
		name string
		seqs []*predictor.Sequence
		rows []int
		x    []float32
		h, l []float32
	}{
		{"empty batch", nil, nil, x[:0], h[:0], l[:0]},
		{"batch above max", []*predictor.Sequence{a, b, closed}, []int{1, 1, 1}, x[:3*H], h, l},
		{"row counts mismatch", ab, []int{1}, x[:2*H], h[:2*H], l[:2*V]},
		{"zero rows", ab, []int{0, 1}, x[:H], h[:2*H], l[:2*V]},
		{"overflows the sequence", ab, []int{9, 1}, x[:10*H], h[:2*H], l[:2*V]},
		{"embeds too short", ab, []int{2, 2}, x[:3*H], h[:2*H], l[:2*V]},
		{"outputs wrong size", ab, []int{2, 2}, x[:4*H], h[:H], l[:2*V]},
		{"same sequence twice", []*predictor.Sequence{a, a}, []int{1, 1}, x[:2*H], h[:2*H], l[:2*V]},
		{"closed sequence", []*predictor.Sequence{a, closed}, []int{1, 1}, x[:2*H], h[:2*H], l[:2*V]},
		{"nil sequence", []*predictor.Sequence{a, nil}, []int{1, 1}, x[:2*H], h[:2*H], l[:2*V]},
	}
	for _, tc := range cases {
		if err := tk.PrefillBatch(tc.seqs, tc.rows, tc.x, tc.h, tc.l); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if a.Pos() != 0 || b.Pos() != 0 {
			t.Fatalf("%s: refused call moved the sequences to %d, %d", tc.name, a.Pos(), b.Pos())
		}
	}
}
