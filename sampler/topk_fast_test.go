package sampler

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// refTopK is the full path's top-k on one row: divide by temp in float32
// (when temp ≠ 1), degenerate on NaN or a ±inf maximum (rowMax), threshold
// kthLargest, survivors collectAtLeast. It returns the divided row too.
func refTopK(x []float32, k int, temp float32) (surv []int32, max float32, ok bool, y []float32) {
	y = slices.Clone(x)
	if temp != 1 {
		for i := range y {
			y[i] /= temp
		}
	}
	max, ok = rowMax(y)
	if !ok {
		return nil, 0, false, y
	}
	thr := kthLargest(y, k, make([]float32, len(y)))
	return collectAtLeast(y, thr, make([]int32, len(y))), max, true, y
}

// topKRow draws a row of v logits of one of several kinds: ties, ±0,
// neighbouring floats, subnormals, values that overflow when divided, -inf
// entries and runs (the talker masks a third of its row), few finite
// values, and rarely NaN or +inf.
func topKRow(rng *rand.Rand, v int) []float32 {
	x := make([]float32, v)
	ninf := float32(math.Inf(-1))
	levels := 1 + rng.Intn(30)
	mix := rng.Intn(4)
	for i := range x {
		switch r := rng.Intn(16); {
		case r == 0:
			x[i] = ninf
		case r == 1:
			x[i] = float32(math.Copysign(0, -1))
		case r == 2:
			x[i] = 0
		case r == 3 && mix > 0:
			x[i] = math.Float32frombits(math.Float32bits(1.5) + uint32(rng.Intn(6)))
		case r == 4 && mix > 1:
			x[i] = math.Float32frombits(uint32(rng.Intn(4)) | uint32(rng.Intn(2))<<31) // ±subnormal
		case r == 5 && mix > 2:
			x[i] = float32(rng.Intn(3)-1) * math.MaxFloat32 * (1 - float32(rng.Intn(3))*1e-7)
		case r < 9:
			x[i] = float32(rng.Intn(levels)-levels/2) / float32(levels) * 4
		default:
			x[i] = float32(rng.NormFloat64() * 2)
		}
	}
	switch rng.Intn(10) {
	case 0: // the talker's mask: the last third at -inf
		for i := v - v/3; i < v; i++ {
			x[i] = ninf
		}
	case 1: // a -inf run covering whole blocks
		lo := rng.Intn(v)
		for i := lo; i < min(v, lo+rng.Intn(v)); i++ {
			x[i] = ninf
		}
	case 2: // few finite values (often fewer than k)
		for i := range x {
			if rng.Intn(40) != 0 {
				x[i] = ninf
			}
		}
	case 3: // all -inf
		for i := range x {
			x[i] = ninf
		}
	}
	if rng.Intn(12) == 0 {
		x[rng.Intn(v)] = []float32{float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001), float32(math.Inf(1))}[rng.Intn(4)]
	}
	return x
}

// TestTopKFastIsTheFullPath checks topKFast against refTopK on random rows
// (see topKRow) through both the block pre-pass and the stream: the same
// degenerate verdict, the same survivors, the same maximum (up to the sign
// of a zero, see TestTopKFastMaxIsPositiveZero), the survivors' divided
// values written back bit for bit, and every other value either left raw or
// divided.
func TestTopKFastIsTheFullPath(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	vocabs := []int{2, 3, 17, 100, 255, 1000, 1599, 1600, 1601, 2047, 2048, 2049, 3071, 3072, 5003}
	for trial := 0; trial < 3000; trial++ {
		v := vocabs[rng.Intn(len(vocabs))]
		if rng.Intn(4) == 0 {
			v = 2 + rng.Intn(4000)
		}
		var k int
		switch rng.Intn(6) {
		case 0:
			k = 1
		case 1:
			k = 50
		case 2:
			k = max(1, blocks(v)/4) // the largest k of the block pre-pass
		case 3:
			k = max(1, v-1-rng.Intn(min(v-1, 3))) // near V
		default:
			k = 1 + rng.Intn(v-1)
		}
		k = min(k, v-1)
		temp := []float32{1, 0.01, 0.37, 0.9, 1.7, 3}[rng.Intn(6)]
		x := topKRow(rng, v)
		want, wantMax, wantOK, y := refTopK(x, k, temp)
		s, err := New(Config{MaxBatch: 1, Vocab: v})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(x)
		surv, gotMax, ok := s.topKFast(got, k, temp)
		path := "stream"
		if blocks(v) >= 4*k {
			path = "block pre-pass"
		}
		if ok != wantOK {
			t.Fatalf("trial %d (V %d k %d T %v, %s): ok %v, want %v", trial, v, k, temp, path, ok, wantOK)
		}
		if !ok {
			continue
		}
		if gotMax != wantMax {
			t.Fatalf("trial %d (V %d k %d T %v, %s): max %v, want %v", trial, v, k, temp, path, gotMax, wantMax)
		}
		if !slices.Equal(surv, want) {
			t.Fatalf("trial %d (V %d k %d T %v, %s): %d survivors %v, want %d %v", trial, v, k, temp, path, len(surv), surv, len(want), want)
		}
		for _, id := range surv {
			if math.Float32bits(got[id]) != math.Float32bits(y[id]) {
				t.Fatalf("trial %d (V %d k %d T %v, %s): survivor %d holds %v, want divided %v", trial, v, k, temp, path, id, got[id], y[id])
			}
		}
		for i, g := range got {
			if b := math.Float32bits(g); b != math.Float32bits(x[i]) && b != math.Float32bits(y[i]) {
				t.Fatalf("trial %d (V %d k %d T %v, %s): x[%d] = %v, neither raw %v nor divided %v", trial, v, k, temp, path, i, g, x[i], y[i])
			}
		}
	}
}

// TestTopKFastMaxIsPositiveZero: with only zeros above the threshold the
// divided maximum is +0 as soon as one +0 is among them (the builtin max).
func TestTopKFastMaxIsPositiveZero(t *testing.T) {
	const v = 2048
	for _, plusAt := range []int{0, 5, 2047} {
		x := make([]float32, v)
		for i := range x {
			x[i] = float32(math.Copysign(0, -1))
		}
		x[plusAt] = 0
		s, _ := New(Config{MaxBatch: 1, Vocab: v})
		_, m, ok := s.topKFast(x, 50, 0.9)
		if !ok || math.Float32bits(m) != 0 {
			t.Errorf("+0 at %d: max %v [%#x] ok %v, want +0", plusAt, m, math.Float32bits(m), ok)
		}
	}
}

// TestTopKFastSignedZeroTies: −0 and +0 are equal, so with a threshold of
// zero (at T = 1, where lowerBound is the threshold itself) every zero of
// either sign survives, whichever sign the k-th largest key has.
func TestTopKFastSignedZeroTies(t *testing.T) {
	for _, v := range []int{1000, 2048} { // stream and block pre-pass
		x := make([]float32, v)
		for i := range x {
			x[i] = float32(math.Copysign(0, float64(1-2*(i%3%2)))) // +0, −0, +0, …
		}
		x[7] = 1
		s, _ := New(Config{MaxBatch: 1, Vocab: v})
		surv, _, ok := s.topKFast(slices.Clone(x), 50, 1)
		if !ok || len(surv) != v {
			t.Errorf("V %d: %d survivors (ok %v), want all %d", v, len(surv), ok, v)
		}
	}
}
