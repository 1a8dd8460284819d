package simd

import (
	"math"
	"strings"
	"testing"
)

func TestArgmax(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for _, c := range []struct {
		name string
		x    []float32
		want int
	}{
		{"single", []float32{-3}, 0},
		{"last", []float32{1, 2, 3}, 2},
		{"first", []float32{3, 2, 1}, 0},
		{"ties go low", []float32{1, 5, 2, 5, 5}, 1},
		{"all equal", []float32{7, 7, 7, 7}, 0},
		{"NaN never wins", []float32{nan, 1, nan, 0}, 1},
		{"NaN after max", []float32{2, nan, 1}, 0},
		{"all NaN", []float32{nan, nan}, 0},
		{"all −Inf", []float32{-inf, -inf, -inf}, 0},
		{"+Inf", []float32{1e38, inf, inf}, 1},
		{"−0 and +0 tie", []float32{float32(math.Copysign(0, -1)), 0}, 0},
		{"negatives", []float32{-5, -1, -3}, 1},
	} {
		if got := Argmax(c.x); got != c.want {
			t.Errorf("Argmax(%s %v) = %d, want %d", c.name, c.x, got, c.want)
		}
	}
	rng := vecRNG(50)
	for _, n := range []int{1, 7, 16, 17, 1000, 3072} {
		x := vecRandBuf(rng, n, 1, 10).s()
		want := 0
		for i := range x {
			if x[i] > x[want] {
				want = i
			}
		}
		if got := Argmax(x); got != want {
			t.Errorf("Argmax(random n=%d) = %d, want %d", n, got, want)
		}
	}
}

func TestArgmaxEmptyPanics(t *testing.T) {
	defer func() {
		if s, _ := recover().(string); !strings.HasPrefix(s, "omni: BUG: ") {
			t.Errorf("Argmax(empty): want an omni: BUG panic, got %q", s)
		}
	}()
	Argmax(nil)
}
