package sampler

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// ---- brute-force reference: vLLM's pipeline written plainly (float64
// softmax, full sorts, maps), per docs/SAMPLING.md §2.

type refRow struct {
	p      Params
	prompt []int
	out    []int
}

// refProcess applies processors and penalties; it returns the new row.
func refProcess(x []float32, r refRow) []float32 {
	y := append([]float32(nil), x...)
	ninf := float32(math.Inf(-1))
	if r.p.AllowedTokenIDs != nil {
		ok := map[int]bool{}
		for _, id := range r.p.AllowedTokenIDs {
			ok[id] = true
		}
		for i := range y {
			if !ok[i] {
				y[i] = ninf
			}
		}
	}
	for _, w := range r.p.BadWordsTokenIDs {
		n := len(w)
		if n-1 > len(r.out) {
			continue
		}
		match := true
		for j := 0; j < n-1; j++ {
			match = match && r.out[len(r.out)-(n-1)+j] == w[j]
		}
		if match {
			y[w[n-1]] = ninf
		}
	}
	if len(r.out) < r.p.MinTokens {
		for _, id := range r.p.StopTokenIDs {
			y[id] = ninf
		}
		if r.p.EOSTokenID != nil {
			y[*r.p.EOSTokenID] = ninf
		}
	}
	for id, b := range r.p.LogitBias {
		y[id] += float32(b)
	}
	seen := map[int]bool{}
	count := map[int]int{}
	for _, t := range r.prompt {
		seen[t] = true
	}
	for _, t := range r.out {
		seen[t] = true
		count[t]++
	}
	rep := float32(r.p.RepetitionPenalty)
	for t := range seen {
		if y[t] > 0 {
			y[t] *= 1 / rep
		} else {
			y[t] *= rep
		}
	}
	for t, c := range count {
		y[t] -= float32(r.p.FrequencyPenalty) * float32(c)
		y[t] -= float32(r.p.PresencePenalty)
	}
	return y
}

func refSoftmax(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	p := make([]float64, len(x))
	s := 0.0
	for i, v := range x {
		p[i] = math.Exp(float64(v) - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// refSample returns the token, the processed row, and the smallest relative
// margin of any softmax-dependent decision (min_p, top-p, the race).
func refSample(x []float32, r refRow, g *Generator) (int, []float32, float64) {
	y := refProcess(x, r)
	margin := math.Inf(1)
	first := func(v []float64) int {
		b := 0
		for i := range v {
			if v[i] > v[b] {
				b = i
			}
		}
		return b
	}
	if r.p.EffectiveTemperature() == 0 {
		v := make([]float64, len(y))
		for i := range y {
			v[i] = float64(y[i])
		}
		return first(v), y, margin
	}
	ninf := float32(math.Inf(-1))
	t := float32(r.p.EffectiveTemperature())
	for i := range y {
		y[i] /= t
	}
	if r.p.MinP > 0 {
		p := refSoftmax(y)
		mx := 0.0
		for _, v := range p {
			mx = math.Max(mx, v)
		}
		thr := mx * float64(float32(r.p.MinP))
		for i := range y {
			if p[i] > 0 {
				margin = math.Min(margin, math.Abs(p[i]-thr)/thr)
			}
			if p[i] < thr {
				y[i] = ninf
			}
		}
	}
	if k := r.p.TopK; k > 0 && k < len(y) {
		s := append([]float32(nil), y...)
		sort.Slice(s, func(i, j int) bool { return s[i] > s[j] })
		thr := s[k-1]
		for i := range y {
			if y[i] < thr {
				y[i] = ninf
			}
		}
	}
	if r.p.TopP < 1 {
		idx := make([]int, len(y))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return y[idx[a]] < y[idx[b]] })
		p := refSoftmax(y)
		lim := float64(1 - float32(r.p.TopP))
		c := 0.0
		for j, id := range idx {
			c += p[id]
			if j < len(idx)-1 && p[id] > 0 {
				margin = math.Min(margin, math.Abs(c-lim))
			}
			if c <= lim && j != len(idx)-1 {
				y[id] = ninf
			}
		}
	}
	p := refSoftmax(y)
	q := make([]float32, len(y))
	g.Exponential(q)
	v := make([]float64, len(y))
	for i := range v {
		v[i] = p[i] / float64(q[i])
	}
	tok := first(v)
	second := 0.0
	for i := range v {
		if i != tok {
			second = math.Max(second, v[i])
		}
	}
	margin = math.Min(margin, (v[tok]-second)/v[tok])
	return tok, y, margin
}

// randomParams draws parameters that exercise every stage.
func randomParams(rng *rand.Rand, vocab int) Params {
	p := DefaultParams()
	pick := func() bool { return rng.Intn(2) == 0 }
	switch rng.Intn(6) {
	case 0:
		p.Temperature = 0
	case 1:
		p.Temperature = 0.005 // clamped to 0.01
	default:
		p.Temperature = 0.3 + rng.Float64()*1.5
	}
	if pick() {
		p.TopK = 1 + rng.Intn(vocab)
	}
	if pick() {
		p.TopP = 0.05 + 0.95*rng.Float64()
	}
	if rng.Intn(3) == 0 {
		p.MinP = rng.Float64() * 0.3
	}
	if pick() {
		p.RepetitionPenalty = 0.5 + rng.Float64()
	}
	if pick() {
		p.FrequencyPenalty = rng.Float64()*4 - 2
	}
	if pick() {
		p.PresencePenalty = rng.Float64()*4 - 2
	}
	if rng.Intn(3) == 0 {
		p.LogitBias = map[int]float64{rng.Intn(vocab): rng.Float64()*6 - 3}
	}
	if rng.Intn(4) == 0 {
		for i := 0; i < vocab; i++ {
			if rng.Intn(3) != 0 {
				p.AllowedTokenIDs = append(p.AllowedTokenIDs, i)
			}
		}
		if p.AllowedTokenIDs == nil {
			p.AllowedTokenIDs = []int{0}
		}
	}
	if rng.Intn(3) == 0 {
		p.BadWordsTokenIDs = [][]int{{rng.Intn(vocab)}, {rng.Intn(vocab), rng.Intn(vocab)}}
	}
	if rng.Intn(3) == 0 {
		eos := rng.Intn(vocab)
		p.EOSTokenID, p.MinTokens, p.StopTokenIDs = &eos, rng.Intn(4), []int{rng.Intn(vocab)}
	}
	seed := rng.Int63()
	p.Seed = &seed
	return p
}

// TestSampleAgainstBruteForce runs random batches with random parameters,
// several steps each, through both pipelines (processed and fast) and the
// plain reference; tokens and processed logits must agree whenever no
// softmax-dependent decision is within 1e-4 of its boundary.
func TestSampleAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	checked, fragile := 0, 0
	for trial := 0; trial < 150; trial++ {
		vocab := []int{2, 5, 17, 64, 300}[rng.Intn(5)]
		b := 1 + rng.Intn(4)
		rows := make([]refRow, b)
		gens := make([]*Generator, b)
		for i := range rows {
			rows[i].p = randomParams(rng, vocab)
			for j := rng.Intn(5); j > 0; j-- {
				rows[i].prompt = append(rows[i].prompt, rng.Intn(vocab))
			}
			for j := rng.Intn(4); j > 0; j-- {
				rows[i].out = append(rows[i].out, rng.Intn(vocab))
			}
			gens[i] = NewGenerator(*rows[i].p.Seed)
		}
		for _, processed := range []bool{true, false} {
			s, err := New(Config{MaxBatch: b, Vocab: vocab, Processed: processed})
			if err != nil {
				t.Fatal(err)
			}
			reqs := make([]*Request, b)
			refs := make([]refRow, b)
			for i, r := range rows {
				if reqs[i], err = NewRequest(r.p, vocab, r.prompt, r.out); err != nil {
					t.Fatal(err)
				}
				refs[i] = refRow{p: r.p, prompt: r.prompt, out: append([]int(nil), r.out...)}
				gens[i] = NewGenerator(*r.p.Seed)
			}
			for step := 0; step < 3; step++ {
				x := make([]float32, b*vocab)
				for i := range x {
					x[i] = float32(rng.NormFloat64() * 2)
					if rng.Intn(7) == 0 { // exact ties
						x[i] = float32(rng.Intn(3))
					}
				}
				orig := append([]float32(nil), x...)
				out := make([]int32, b)
				if err := s.Sample(x, reqs, out); err != nil {
					t.Fatal(err)
				}
				for i := range reqs {
					want, wantRow, margin := refSample(orig[i*vocab:(i+1)*vocab], refs[i], gens[i])
					if margin < 1e-4 {
						fragile++
					} else {
						checked++
						if int(out[i]) != want {
							t.Fatalf("trial %d step %d row %d (V %d, %+v): token %d, want %d", trial, step, i, vocab, refs[i].p, out[i], want)
						}
						if processed {
							for j, w := range wantRow {
								g := x[i*vocab+j]
								if !(g == w || math.Abs(float64(g-w)) <= 1e-6+1e-6*math.Abs(float64(w))) {
									t.Fatalf("trial %d step %d row %d: processed[%d] = %v, want %v (%+v)", trial, step, i, j, g, w, refs[i].p)
								}
							}
						}
					}
					reqs[i].Append(want)
					refs[i].out = append(refs[i].out, want)
				}
			}
		}
	}
	if fragile*10 > checked {
		t.Errorf("%d rows too close to a boundary to check, %d checked", fragile, checked)
	}
	t.Logf("%d rows checked, %d skipped as within 1e-4 of a boundary", checked, fragile)
}

// TestFastPathEqualsFullPath hammers the top-k fast path with heavy ties,
// temperatures and large k against the processed (full) pipeline: tokens
// and generator states must be identical.
func TestFastPathEqualsFullPath(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 400; trial++ {
		vocab := 2 + rng.Intn(600)
		p := DefaultParams()
		p.TopK = 1 + rng.Intn(vocab-1)
		p.Temperature = []float64{1, 0.01, 0.37, 0.9, 1.7, 3}[rng.Intn(6)]
		if rng.Intn(3) == 0 {
			p.TopP = rng.Float64()*0.99 + 0.01
		}
		seed := rng.Int63()
		p.Seed = &seed
		x := make([]float32, vocab)
		levels := 1 + rng.Intn(20)
		for i := range x {
			switch rng.Intn(10) {
			case 0:
				x[i] = float32(math.Inf(-1))
			case 1, 2:
				// neighbouring floats: distinct raw values that can divide
				// by T to the same float (a tie only after temperature)
				x[i] = math.Float32frombits(math.Float32bits(1.5) + uint32(rng.Intn(6)))
			case 3:
				x[i] = float32(rng.Intn(levels)) * 1e-7 * float32(1+rng.Intn(2))
			default:
				x[i] = float32(rng.Intn(levels)) / float32(levels) * 4
			}
		}
		var toks [2]int32
		var states [2][]byte
		for m, processed := range []bool{true, false} {
			s, _ := New(Config{MaxBatch: 1, Vocab: vocab, Processed: processed})
			r, err := NewRequest(p, vocab, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			y := append([]float32(nil), x...)
			out := make([]int32, 1)
			if err := s.Sample(y, []*Request{r}, out); err != nil {
				t.Fatal(err)
			}
			toks[m] = out[0]
			states[m], _ = r.Generator().MarshalBinary()
		}
		if toks[0] != toks[1] {
			t.Fatalf("trial %d (V %d, %+v): fast token %d, full token %d", trial, vocab, p, toks[1], toks[0])
		}
		if string(states[0]) != string(states[1]) {
			t.Fatalf("trial %d: generator states differ after one step", trial)
		}
	}
}

func TestGreedyRowsDrawNothingSeededRowsDrawV(t *testing.T) {
	const v = 50
	s, _ := New(Config{MaxBatch: 2, Vocab: v})
	g := DefaultParams()
	g.Temperature = 0
	seed := int64(11)
	g.Seed = &seed
	rnd := DefaultParams()
	rnd.Seed = &seed
	rg, _ := NewRequest(g, v, nil, nil)
	rr, _ := NewRequest(rnd, v, nil, nil)
	if rg.Generator() != nil {
		t.Fatal("greedy request has a generator")
	}
	engine, _ := s.EngineGenerator().MarshalBinary()
	x := make([]float32, 2*v)
	out := make([]int32, 2)
	for step := 0; step < 3; step++ {
		if err := s.Sample(x, []*Request{rg, rr}, out); err != nil {
			t.Fatal(err)
		}
	}
	want := NewGenerator(seed)
	want.Advance(3 * v)
	a, _ := rr.Generator().MarshalBinary()
	b, _ := want.MarshalBinary()
	if string(a) != string(b) {
		t.Error("seeded row did not advance by exactly 3·V elements")
	}
	if e, _ := s.EngineGenerator().MarshalBinary(); string(e) != string(engine) {
		t.Error("engine generator moved although no row was unseeded")
	}
}

func TestRequestMovesBetweenEngines(t *testing.T) {
	const v = 300
	p := DefaultParams()
	seed := int64(77)
	p.Seed, p.TopK = &seed, 20
	rng := rand.New(rand.NewSource(9))
	steps := make([][]float32, 6)
	for i := range steps {
		steps[i] = make([]float32, v)
		for j := range steps[i] {
			steps[i][j] = float32(rng.NormFloat64())
		}
	}
	run := func(r *Request, s *Sampler, x []float32) int32 {
		y := append([]float32(nil), x...)
		out := make([]int32, 1)
		if err := s.Sample(y, []*Request{r}, out); err != nil {
			t.Fatal(err)
		}
		r.Append(int(out[0]))
		return out[0]
	}
	s1, _ := New(Config{MaxBatch: 1, Vocab: v})
	whole, _ := NewRequest(p, v, nil, nil)
	var want []int32
	for _, x := range steps {
		want = append(want, run(whole, s1, x))
	}
	a, _ := NewRequest(p, v, nil, nil)
	var got []int32
	for _, x := range steps[:3] {
		got = append(got, run(a, s1, x))
	}
	st, _ := a.Generator().MarshalBinary()
	b, _ := NewRequest(p, v, nil, nil)
	if err := b.Generator().UnmarshalBinary(st); err != nil {
		t.Fatal(err)
	}
	s2, _ := New(Config{MaxBatch: 4, Vocab: v, Seed: 5})
	for _, x := range steps[3:] {
		got = append(got, run(b, s2, x))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("step %d after the move: token %d, want %d", i, got[i], want[i])
		}
	}
}

func TestSampleAllocatesNothing(t *testing.T) {
	const v, b = 3072, 4
	s, _ := New(Config{MaxBatch: b, Vocab: v, Timer: func(string, float64) {}})
	reqs := benchRequests(t, b, v, 50)
	p := DefaultParams()
	p.TopP, p.MinP, p.RepetitionPenalty = 0.9, 0.01, 1.1
	seed := int64(3)
	p.Seed = &seed
	full, _ := NewRequest(p, v, []int{1, 2, 3}, []int{4})
	reqs[3] = full
	x := make([]float32, b*v)
	src := make([]float32, b*v)
	rng := rand.New(rand.NewSource(1))
	for i := range src {
		src[i] = float32(rng.NormFloat64())
	}
	out := make([]int32, b)
	allocs := testing.AllocsPerRun(20, func() {
		copy(x, src)
		if err := s.Sample(x, reqs, out); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Sample allocates %v times per call, want 0", allocs)
	}
}

func TestTimerPhases(t *testing.T) {
	got := map[string]int{}
	s, _ := New(Config{MaxBatch: 1, Vocab: 10, Timer: func(name string, ms float64) {
		if ms < 0 {
			t.Errorf("%s = %v ms", name, ms)
		}
		got[name]++
	}})
	r, _ := NewRequest(DefaultParams(), 10, nil, nil)
	out := make([]int32, 1)
	for i := 0; i < 2; i++ {
		if err := s.Sample(make([]float32, 10), []*Request{r}, out); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"sampler.process_ms", "sampler.filter_ms", "sampler.noise_ms", "sampler.pick_ms", "sampler.total_ms"} {
		if got[n] != 2 {
			t.Errorf("timer %s recorded %d times, want 2", n, got[n])
		}
	}
}

func TestSampleRefusesMismatchedBatch(t *testing.T) {
	s, _ := New(Config{MaxBatch: 2, Vocab: 10})
	r10, _ := NewRequest(DefaultParams(), 10, nil, nil)
	r11, _ := NewRequest(DefaultParams(), 11, nil, nil)
	out := make([]int32, 3)
	for name, call := range map[string]func() error{
		"too many rows": func() error { return s.Sample(make([]float32, 30), []*Request{r10, r10, r10}, out) },
		"short logits":  func() error { return s.Sample(make([]float32, 9), []*Request{r10}, out) },
		"vocab":         func() error { return s.Sample(make([]float32, 10), []*Request{r11}, out) },
		"nil request":   func() error { return s.Sample(make([]float32, 10), []*Request{nil}, out) },
		"short out":     func() error { return s.Sample(make([]float32, 20), []*Request{r10, r10}, out[:1]) },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: Sample = nil error", name)
		}
	}
	if _, err := New(Config{MaxBatch: 0, Vocab: 10}); err == nil {
		t.Error("New(MaxBatch 0) = nil error")
	}
	if _, err := NewRequest(DefaultParams(), 10, []int{10}, nil); err == nil {
		t.Error("NewRequest with prompt id 10 of 10 = nil error")
	}
}

// TestTopKTieAfterTemperature: two raw logits one ulp apart that divide by T
// to the same float are a tie at the top-k threshold after temperature, so
// top_k 1 keeps both and both are sampled (over many seeds), in both
// pipelines.
func TestTopKTieAfterTemperature(t *testing.T) {
	x1 := math.Float32frombits(math.Float32bits(1.5) + 1)
	x2 := math.Float32frombits(math.Float32bits(1.5) + 2)
	temp := float32(0)
	for _, c := range []float32{3, 7, 0.3, 0.7, 1.3, 2.9, 5.1} {
		if x1/c == x2/c {
			temp = c
			break
		}
	}
	if temp == 0 {
		t.Fatal("no temperature makes the two logits collide")
	}
	for _, processed := range []bool{true, false} {
		seen := map[int32]bool{}
		for seed := int64(0); seed < 64; seed++ {
			p := DefaultParams()
			p.TopK, p.Temperature, p.Seed = 1, float64(temp), &seed
			r, _ := NewRequest(p, 4, nil, nil)
			s, _ := New(Config{MaxBatch: 1, Vocab: 4, Processed: processed})
			out := make([]int32, 1)
			if err := s.Sample([]float32{0, x1, x2, -1}, []*Request{r}, out); err != nil {
				t.Fatal(err)
			}
			seen[out[0]] = true
		}
		if !seen[1] || !seen[2] || seen[0] || seen[3] {
			t.Errorf("processed=%v T=%v: tokens seen %v, want exactly {1, 2}", processed, temp, seen)
		}
	}
}

func TestSeedMinusOneIsUnseeded(t *testing.T) {
	p := DefaultParams()
	m1 := int64(-1)
	p.Seed = &m1
	r, err := NewRequest(p, 10, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Generator() != nil {
		t.Error("seed -1 got its own generator; vLLM treats it as no seed")
	}
}

// TestNonFiniteRows: a row holding NaN or +Inf (a damaged model; torch
// would give token 0) is an error wrapping ErrNonFinite that names the row
// and the first bad id, on every path (greedy, full, top-k fast path); so is
// a finite row the temperature overflows to +Inf, on both the full and the
// fast path. A row of -Inf only (everything masked) still gives token 0 with
// the noise drawn, as torch does.
func TestNonFiniteRows(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	ninf := float32(math.Inf(-1))
	for _, c := range []struct {
		name    string
		row     []float32
		temp    float64
		wantErr string // "" for token 0
	}{
		{"NaN", []float32{1, 2, nan, 4, 5, 6}, 1, "row 1: logit of id 2 is NaN"},
		{"NaN tempered", []float32{1, 2, 3, nan, 5, 6}, 0.7, "row 1: logit of id 3 is NaN"},
		{"+Inf", []float32{1, inf, 3, 4, 5, 6}, 1, "row 1: logit of id 1 is +Inf"},
		{"overflow under temperature", []float32{1, 2, 3e38, 4, 5, 6}, 0.5, "row 1: logit of id 2 is"},
		{"all -Inf", []float32{ninf, ninf, ninf, ninf, ninf, ninf}, 1, ""},
	} {
		for _, topK := range []int{0, 3} {
			for _, processed := range []bool{true, false} {
				name := fmt.Sprintf("%s/top_k=%d/processed=%v", c.name, topK, processed)
				p := DefaultParams()
				seed := int64(5)
				p.Seed, p.TopK, p.Temperature = &seed, topK, c.temp
				good, _ := NewRequest(DefaultParams(), 6, nil, nil)
				r, err := NewRequest(p, 6, nil, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				s, _ := New(Config{MaxBatch: 2, Vocab: 6, Processed: processed})
				out := make([]int32, 2)
				logits := append([]float32{1, 2, 3, 4, 5, 6}, c.row...)
				err = s.Sample(logits, []*Request{good, r}, out)
				if c.wantErr != "" {
					if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), c.wantErr) {
						t.Errorf("%s: Sample error %v, want ErrNonFinite with %q", name, err, c.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if out[1] != 0 {
					t.Errorf("%s: token %d, want 0", name, out[1])
				}
				want := NewGenerator(5)
				want.Advance(6)
				a, _ := r.Generator().MarshalBinary()
				b, _ := want.MarshalBinary()
				if string(a) != string(b) {
					t.Errorf("%s: generator did not advance by V", name)
				}
			}
		}
	}
	g := DefaultParams()
	g.Temperature = 0
	r, _ := NewRequest(g, 6, nil, nil)
	s, _ := New(Config{MaxBatch: 1, Vocab: 6})
	out := make([]int32, 1)
	err := s.Sample([]float32{1, 9, nan, 4, nan, 6}, []*Request{r}, out)
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 0: logit of id 2 is NaN") {
		t.Errorf("greedy with NaN: error %v, want ErrNonFinite naming id 2", err)
	}
	if err := s.Sample([]float32{1, 9, inf, 4, 2, 6}, []*Request{r}, out); !errors.Is(err, ErrNonFinite) {
		t.Errorf("greedy with +Inf: error %v, want ErrNonFinite", err)
	}
	if err := s.Sample([]float32{ninf, ninf, ninf, ninf, ninf, ninf}, []*Request{r}, out); err != nil || out[0] != 0 {
		t.Errorf("greedy all -Inf: token %d, error %v; want token 0", out[0], err)
	}
}
