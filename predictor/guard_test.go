package predictor

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/omni-tts/omni/simd"
)

// newTestBackend returns a native backend closed at the end of the test.
func newTestBackend(t testing.TB) *simd.Backend {
	b := simd.NewBackend(0)
	t.Cleanup(b.Close)
	return b
}

// TestPickGuardsBruteForce checks pickGuards against its definition: the
// channels at or above ratio × the median (the upper middle element of the
// sorted values), and when more than limit qualify, the limit largest (ties
// to the lower channel), returned ascending.
func TestPickGuardsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(64)
		sens := make([]float64, n)
		for i := range sens {
			sens[i] = float64(r.IntN(4)) // many ties
			if r.IntN(8) == 0 {
				sens[i] = float64(8 + r.IntN(40))
			}
		}
		limit := r.IntN(6)
		got := pickGuards(sens, 8, limit)

		sorted := append([]float64(nil), sens...)
		sort.Float64s(sorted)
		med := sorted[n/2]
		type ch struct {
			c int
			s float64
		}
		var q []ch
		if med > 0 {
			for c, s := range sens {
				if s >= 8*med {
					q = append(q, ch{c, s})
				}
			}
		}
		sort.SliceStable(q, func(i, j int) bool { return q[i].s > q[j].s })
		if len(q) > limit {
			q = q[:limit]
		}
		var want []int32
		for _, x := range q {
			want = append(want, int32(x.c))
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("sens %v limit %d: pickGuards = %v, want %v", sens, limit, got, want)
		}
	}
}

// TestGuardsAreTheOutlierChannels checks that int8 guards exactly the
// synthetic model's outlier channels (by construction the channels whose
// norm gains are drawn from [20, 60]), none without outliers or in fp32.
func TestGuardsAreTheOutlierChannels(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the synthetic 0.6B model")
	}
	for _, tc := range []struct {
		spec string
		prec Precision
		some bool
	}{{"synth:0.6b+outliers", Int8, true}, {"synth:tiny+outliers", FP32, false}, {"synth:tiny-wide", Int8, false}} {
		src, err := OpenModel(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		w, err := LoadWeights(src, newTestBackend(t), tc.prec)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.spec, tc.prec, err)
		}
		for _, s := range []struct {
			prefix string
			got    []int32
		}{{talkerPrefix, w.Guards.Talker}, {predictorPrefix, w.Guards.Predictor}} {
			var want []int32
			if tc.some {
				hidden := src.Config().Talker.Hidden
				if s.prefix == predictorPrefix {
					hidden = src.Config().Predictor.Hidden
				}
				g := make([]float32, hidden)
				if err := src.ReadF32(s.prefix+"norm.weight", g); err != nil {
					t.Fatal(err)
				}
				for c, v := range g {
					if v >= synthOutlierMin {
						want = append(want, int32(c))
					}
				}
				if len(want) != synthOutliers {
					t.Fatalf("%s: %d channels with gain ≥ %v, the model has %d outliers", s.prefix, len(want), synthOutlierMin, synthOutliers)
				}
			}
			if !slices.Equal(s.got, want) {
				t.Errorf("%s %s %s: guards %v, want %v", tc.spec, tc.prec, s.prefix, s.got, want)
			}
		}
		w.Free()
		src.Close()
	}
}

// TestGivenGuardsOutOfRange checks a guard list naming a row past the
// matrix is refused with the tensor's name.
func TestGivenGuardsOutOfRange(t *testing.T) {
	src, err := OpenModel("synth:tiny+outliers")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = LoadWeightsGuarded(src, newTestBackend(t), Int8, &Guards{Predictor: []int32{1 << 20}})
	if err == nil {
		t.Fatal("a guarded row past the matrix loaded")
	}
	if want := "o_proj.weight: guarded row 1048576 outside"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

// TestPickGuardsWorked checks pickGuards on worked examples.
func TestPickGuardsWorked(t *testing.T) {
	for _, tc := range []struct {
		sens  []float64
		limit int
		want  []int32
	}{
		// median 1 (upper middle of 1,1,1,1,1,8,9,20): 9, 20 and 8 reach 8×;
		// a limit of 2 keeps the two largest, 20 and 9.
		{[]float64{1, 1, 9, 1, 1, 20, 1, 8}, 2, []int32{2, 5}},
		{[]float64{1, 1, 9, 1, 1, 20, 1, 8}, 5, []int32{2, 5, 7}},
		{[]float64{1, 1, 7.99, 1}, 4, nil}, // below 8× the median
		{[]float64{0, 0, 5, 0}, 4, nil},    // a zero median guards nothing
		{[]float64{2, 2, 2, 2}, 4, nil},
	} {
		if got := pickGuards(tc.sens, 8, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("pickGuards(%v, 8, %d) = %v, want %v", tc.sens, tc.limit, got, tc.want)
		}
	}
}
