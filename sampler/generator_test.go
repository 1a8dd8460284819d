package sampler

import (
	"bytes"
	"math"
	"math/rand"
	"testing"
)

// refMT is MT19937 written plainly from its definition (init_genrand, the
// twist one word at a time, tempering): the brute-force reference.
type refMT struct {
	s [624]uint32
	i int
}

func newRefMT(seed uint32) *refMT {
	m := &refMT{i: 624}
	m.s[0] = seed
	for j := 1; j < 624; j++ {
		m.s[j] = 1812433253*(m.s[j-1]^(m.s[j-1]>>30)) + uint32(j)
	}
	return m
}

func (m *refMT) next() uint32 {
	if m.i == 624 {
		for k := 0; k < 624; k++ {
			y := (m.s[k] & 0x80000000) | (m.s[(k+1)%624] & 0x7fffffff)
			v := m.s[(k+397)%624] ^ (y >> 1)
			if y&1 == 1 {
				v ^= 0x9908b0df
			}
			m.s[k] = v
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func TestGeneratorMatchesReferenceMT(t *testing.T) {
	// Raw MT19937 with seed 5489 starts with 3499211612 (the standard value).
	if got := NewGenerator(5489).Uint32(); got != 3499211612 {
		t.Fatalf("Uint32 after seed 5489 = %d, want 3499211612", got)
	}
	for _, seed := range []int64{0, 1, 42, 1<<32 + 1, -1, math.MaxInt64} {
		g := NewGenerator(seed)
		r := newRefMT(uint32(uint64(seed)))
		for i := 0; i < 3000; i++ {
			if got, want := g.Uint32(), r.next(); got != want {
				t.Fatalf("seed %d word %d = %d, want %d", seed, i, got, want)
			}
		}
	}
}

func TestExponentialPublishedValues(t *testing.T) {
	// docs/SAMPLING.md §3: fresh generators, 6 exponentials each,
	// and torch 2.6.0's published seed-42 values after 5 torch.rand draws
	// (one word each).
	cases := []struct {
		seed  int64
		skip  int
		want  []float64
		digit float64
	}{
		{0, 0, []float64{3.50832629, 1.23038471, 0.615044117, 2.53511858, 1.03570545, 1.56612885}, 1e-8},
		{42, 0, []float64{0.0599140152, 0.064976126, 0.131916776, 0.0540129505, 0.746910691, 0.647762358}, 1e-9},
		{1234, 0, []float64{0.263749659, 0.0820280239, 0.628120303, 0.535083294, 0.495033413, 0.314251065}, 1e-9},
		{42, 5, []float64{1.6459103, 0.42944643, 0.067730233, 1.3808581, 0.78028083}, 1e-7},
	}
	for _, c := range cases {
		g := NewGenerator(c.seed)
		for i := 0; i < c.skip; i++ {
			g.Uint32()
		}
		got := make([]float32, len(c.want))
		g.Exponential(got)
		for i, w := range c.want {
			if math.Abs(float64(got[i])-w) > c.digit*math.Max(1, w) {
				t.Errorf("seed %d skip %d Exponential[%d] = %.9g, want %.9g", c.seed, c.skip, i, got[i], w)
			}
		}
	}
}

func TestExponentialAtEqualsFullDraw(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		seed := rng.Int63()
		pre := rng.Intn(700) // words drawn first, so draws start at any parity
		n := 1 + rng.Intn(3100)
		var at []int32
		for i := 0; i < n; i++ {
			if rng.Intn(8) == 0 {
				at = append(at, int32(i))
			}
		}
		full, part := NewGenerator(seed), NewGenerator(seed)
		for i := 0; i < pre; i++ {
			full.Uint32()
			part.Uint32()
		}
		want := make([]float32, n)
		full.Exponential(want)
		got := make([]float32, len(at))
		if z := part.exponentialAt(n, at, got); z != -1 {
			t.Fatalf("exponentialAt reported a zero draw at %d", z)
		}
		for j, id := range at {
			if math.Float32bits(got[j]) != math.Float32bits(want[id]) {
				t.Fatalf("trial %d (pre %d n %d): element %d = %v, want %v", trial, pre, n, id, got[j], want[id])
			}
		}
		if a, b := full.Uint32(), part.Uint32(); a != b {
			t.Fatalf("trial %d (pre %d n %d): streams diverge after the draw: %d vs %d", trial, pre, n, a, b)
		}
	}
}

func TestExponentialAtFindsZeroDraw(t *testing.T) {
	// Force u == 0 for element 3: its two words must be 0 after tempering
	// the first's low 21 bits, i.e. raw words chosen so. Build a state whose
	// next block (no twist needed) holds them.
	src := NewGenerator(7)
	src.twist()
	src.setWord(7, 0)                   // w2 of element 3: raw 0 tempers to 0
	src.setWord(6, untemperZeroLow21()) // w1 of element 3: low 21 bits 0
	saved, _ := src.MarshalBinary()
	var g Generator
	if err := g.UnmarshalBinary(saved); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 1)
	if z := g.exponentialAt(10, []int32{5}, out); z != 3 {
		t.Fatalf("exponentialAt zero element = %d, want 3", z)
	}
	var h Generator
	if err := h.UnmarshalBinary(saved); err != nil {
		t.Fatal(err)
	}
	all := make([]float32, 10)
	h.Exponential(all)
	if all[3] != 0 {
		t.Fatalf("full draw element 3 = %v, want 0", all[3])
	}
}

// untemperZeroLow21 finds a raw word whose tempered value has its low 21 bits
// zero (by search over a small space).
func untemperZeroLow21() uint32 {
	for w := uint32(1); ; w++ {
		if temper(w)&(1<<21-1) == 0 {
			return w
		}
	}
}

func TestGeneratorStateRoundTrip(t *testing.T) {
	g := NewGenerator(99)
	buf := make([]float32, 1000)
	g.Exponential(buf)
	st, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 700)
	g.Exponential(want)
	var h Generator
	if err := h.UnmarshalBinary(st); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 700)
	h.Exponential(got)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("restored stream element %d = %v, want %v", i, got[i], want[i])
		}
	}
	if err := h.UnmarshalBinary(st[:10]); err == nil {
		t.Error("UnmarshalBinary(short) = nil, want an error")
	}
	bad := bytes.Clone(st)
	bad[len(bad)-1] = 0xff
	if err := h.UnmarshalBinary(bad); err == nil {
		t.Error("UnmarshalBinary(bad position) = nil, want an error")
	}
}

func TestExponentialAtFindsZeroAfterTwist(t *testing.T) {
	// Raw words 0, 1, 2, 397, 398 all zero before a twist make the new
	// words 0 and 1 zero (y = 0, mt[397] = mt[398] = 0), so element 0 of
	// the next draw has u == 0; only the twist's zero detection can see it.
	src := NewGenerator(3)
	for _, i := range []int{0, 1, 2, 397, 398} {
		src.setWord(i, 0)
	}
	src.idx = mtN
	saved, _ := src.MarshalBinary()
	for _, at := range [][]int32{{5}, {1, 2}, nil} {
		var g Generator
		if err := g.UnmarshalBinary(saved); err != nil {
			t.Fatal(err)
		}
		out := make([]float32, len(at))
		if z := g.exponentialAt(700, at, out); z != 0 {
			t.Errorf("exponentialAt(at %v) zero element = %d, want 0", at, z)
		}
	}
	var h Generator
	h.UnmarshalBinary(saved)
	all := make([]float32, 3)
	h.Exponential(all)
	if all[0] != 0 || all[1] == 0 {
		t.Errorf("full draw = %v, want element 0 exactly 0 and element 1 not", all)
	}
}

func TestZeroNoiseOnMaskedTokenWinsAsNaN(t *testing.T) {
	// torch: P = 0 and q = 0 give 0/0 = NaN, and argmax returns the first
	// NaN, so a masked token 0 with zero noise is chosen.
	src := NewGenerator(3)
	for _, i := range []int{0, 1, 2, 397, 398} {
		src.setWord(i, 0)
	}
	src.idx = mtN
	saved, _ := src.MarshalBinary()
	for _, processed := range []bool{true, false} {
		p := DefaultParams()
		seed := int64(1)
		p.Seed, p.TopK = &seed, 3
		r, _ := NewRequest(p, 8, nil, nil)
		if err := r.Generator().UnmarshalBinary(saved); err != nil {
			t.Fatal(err)
		}
		s, _ := New(Config{MaxBatch: 1, Vocab: 8, Processed: processed})
		out := make([]int32, 1)
		x := []float32{float32(math.Inf(-1)), 1, 2, 3, 4, 5, 6, 7}
		if err := s.Sample(x, []*Request{r}, out); err != nil {
			t.Fatal(err)
		}
		if out[0] != 0 {
			t.Errorf("processed=%v: token %d, want 0 (the NaN of 0/0)", processed, out[0])
		}
	}
}
