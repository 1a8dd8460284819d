package predictor

import "fmt"

// Path chooses how the code predictor runs the sub-steps of a frame.
type Path int

const (
	// Incremental runs a 2-row prefill, then one row per sub-step against the
	// frame's KV cache (the default).
	Incremental Path = iota
	// FullPrefix re-runs every row of the prefix from scratch at each
	// sub-step (the original system's slow baseline), for parity and
	// benchmarks.
	FullPrefix
)

// String returns "incremental" or "full".
func (p Path) String() string {
	if p == FullPrefix {
		return "full"
	}
	return "incremental"
}

// ParsePath maps "incremental" (or "") and "full" to a Path.
func ParsePath(s string) (Path, error) {
	switch s {
	case "", "incremental":
		return Incremental, nil
	case "full":
		return FullPrefix, nil
	}
	return Incremental, fmt.Errorf("predictor: path %q unknown (want incremental or full)", s)
}

// PickFunc chooses the codes of sub-step g (codebook g, 1..15) from the
// logits of B rows (B×vocab, row-major) by writing one code per row into
// codes (length B). It is called once per sub-step, in codebook order; the
// engine plugs its sampler in here, tests and benchmarks pick greedily or
// teacher-force. It must not retain the slices.
type PickFunc func(g int, logits []float32, codes []int32)

// CodePredictor runs the code predictor for up to MaxBatch streams at once:
// per frame a fresh 17-slot KV cache per stream, a 2-row prefill of
// [proj(h), proj(codec_embedding[c0])] that gives codebook 1, then 14 single
// rows that give codebooks 2..15 (docs/MODEL.md §5). A CodePredictor is
// used by one goroutine at a time; its steady state allocates nothing.
type CodePredictor struct {
	w        *PredictorWeights
	b        Backend
	path     Path
	maxBatch int
	caches   []int32 // one 17-slot cache per stream

	s      scratch
	x      []float32 // residual rows, up to maxBatch·groups rows
	in     []float32 // projected inputs per stream and slot [maxBatch][groups][width]
	lastX  []float32 // last residual row of each stream
	lastH  []float32 // its final norm
	logits []float32 // maxBatch×vocab
	pick   []int32   // maxBatch codes of one sub-step
	rowC   []int32   // per-row cache handles
	rowP   []int32   // per-row positions
	ids    []int32   // table ids

	ref    *CodePredictor // fp32 reference run beside this one, or nil
	parity *Parity
}

// PredictorOptions configure NewCodePredictor.
type PredictorOptions struct {
	// MaxBatch is the most streams one PredictFrame call takes (≥ 1).
	MaxBatch int
	// Path is Incremental (default) or FullPrefix.
	Path Path
}

// Validate refuses options NewCodePredictor cannot honour.
func (o PredictorOptions) Validate() error {
	if o.MaxBatch < 1 || o.MaxBatch > 1<<16 {
		return fmt.Errorf("predictor: max batch %d outside [1, 65536]", o.MaxBatch)
	}
	if o.Path != Incremental && o.Path != FullPrefix {
		return fmt.Errorf("predictor: path %d unknown", int(o.Path))
	}
	return nil
}

// NewCodePredictor allocates the caches and buffers for opts.MaxBatch
// streams on the weights' backend.
func NewCodePredictor(w *PredictorWeights, opts PredictorOptions) (*CodePredictor, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if w == nil || w.dec.layers == nil {
		return nil, errNotLoaded
	}
	s := &w.shape
	g := &w.dec.geom
	B, G := opts.MaxBatch, s.groups
	p := &CodePredictor{w: w, b: w.b, path: opts.Path, maxBatch: B}
	for i := 0; i < B; i++ {
		h, err := w.b.NewKVCache(g.layers, g.kvHeads, g.headDim, G+1)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("predictor: code predictor cache %d: %w", i, err)
		}
		p.caches = append(p.caches, h)
	}
	rows := B * G
	if opts.Path == Incremental {
		rows = 2 * B
	}
	p.s.ensure(g, len(w.dec.guard), rows)
	p.x = make([]float32, rows*g.hidden)
	p.in = make([]float32, B*G*g.hidden)
	p.lastX = make([]float32, B*g.hidden)
	p.lastH = make([]float32, B*g.hidden)
	p.logits = make([]float32, B*s.predVocab)
	p.pick = make([]int32, B)
	p.rowC = make([]int32, rows)
	p.rowP = make([]int32, rows)
	p.ids = make([]int32, B)
	return p, nil
}

// Close frees the caches (and the parity reference's).
func (p *CodePredictor) Close() error {
	for _, h := range p.caches {
		p.b.Free(h)
	}
	p.caches = nil
	if p.ref != nil {
		p.ref.Close()
		p.ref = nil
	}
	return nil
}

// EnableParity makes every PredictFrame also run ref (an fp32 code predictor
// on the same inputs, fed the codes this predictor's picks chose) and record
// the agreement of the two logit sets in par. ref must have the same
// geometry and at least this predictor's MaxBatch; it is closed with p.
func (p *CodePredictor) EnableParity(ref *CodePredictor, par *Parity) error {
	if ref == nil || par == nil {
		return fmt.Errorf("predictor: parity needs a reference predictor and a Parity")
	}
	if ref.maxBatch < p.maxBatch || ref.w.shape.predVocab != p.w.shape.predVocab ||
		ref.w.shape.groups != p.w.shape.groups || ref.w.shape.talkerHidden != p.w.shape.talkerHidden {
		return fmt.Errorf("predictor: parity reference does not match the predictor (batch %d < %d or other geometry)", ref.maxBatch, p.maxBatch)
	}
	p.ref, p.parity = ref, par
	return nil
}

// MaxBatch returns the most streams one PredictFrame takes.
func (p *CodePredictor) MaxBatch() int { return p.maxBatch }

// PredictFrame predicts codebooks 1..groups-1 of one frame for B = len(c0)
// streams. hidden holds the talker's final-norm hidden of each stream
// (B×talker hidden), c0 each stream's codebook-0 code (< talker vocab);
// codes (B×groups, row-major) receives c0 in column 0 and the picked codes in
// columns 1.. . pick is called for sub-steps g = 1..groups-1 with the B×vocab
// logits of lm_head[g-1].
func (p *CodePredictor) PredictFrame(hidden []float32, c0 []int32, codes []int32, pick PickFunc) error {
	s := &p.w.shape
	B, G := len(c0), s.groups
	if B < 1 || B > p.maxBatch {
		return fmt.Errorf("predictor: batch %d outside [1, %d]", B, p.maxBatch)
	}
	if len(hidden) != B*s.talkerHidden {
		return fmt.Errorf("predictor: talker hidden has %d values, want %d×%d", len(hidden), B, s.talkerHidden)
	}
	if len(codes) != B*G {
		return fmt.Errorf("predictor: codes has %d values, want %d×%d", len(codes), B, G)
	}
	if pick == nil {
		return fmt.Errorf("predictor: nil pick function")
	}
	for r, c := range c0 {
		if c < 0 || int(c) >= s.talkerVocab {
			return fmt.Errorf("predictor: c0[%d] = %d outside [0, %d)", r, c, s.talkerVocab)
		}
		codes[r*G] = c
	}
	if err := p.begin(hidden, codes, B); err != nil {
		return err
	}
	if p.ref != nil {
		if err := p.ref.begin(hidden, codes, B); err != nil {
			return fmt.Errorf("predictor: parity reference: %w", err)
		}
	}
	V := s.predVocab
	for g := 1; g < G; g++ {
		if err := p.step(g, codes, B); err != nil {
			return fmt.Errorf("predictor: sub-step %d: %w", g, err)
		}
		logits := p.logits[:B*V]
		if p.ref != nil {
			if err := p.ref.step(g, codes, B); err != nil {
				return fmt.Errorf("predictor: parity reference sub-step %d: %w", g, err)
			}
			p.parity.Record(p.ref.logits[:B*V], logits, B, V)
		}
		out := p.pick[:B]
		pick(g, logits, out)
		for r, c := range out {
			if c < 0 || int(c) >= V {
				return fmt.Errorf("predictor: pick for codebook %d row %d = %d outside [0, %d)", g, r, c, V)
			}
			codes[r*G+g] = c
		}
	}
	return nil
}

// begin forms each stream's first two input rows: proj(h) and
// proj(talker codec_embedding[c0]).
func (p *CodePredictor) begin(hidden []float32, codes []int32, B int) error {
	s := &p.w.shape
	W, G := s.predWidth, s.groups
	// Slot 0 of every stream: proj(h), written to lastX then spread.
	h0 := p.lastX[:B*W]
	if p.w.proj >= 0 {
		if err := p.b.MatMul(h0, hidden, B, p.w.proj); err != nil {
			return fmt.Errorf("predictor: project talker hidden: %w", err)
		}
	} else {
		copy(h0, hidden)
	}
	// Slot 1: the predictor-width table row of c0.
	for r := 0; r < B; r++ {
		p.ids[r] = codes[r*G]
	}
	e := p.lastH[:B*W]
	if err := p.b.Embed(e, p.ids[:B], 1, p.w.input); err != nil {
		return fmt.Errorf("predictor: embed c0: %w", err)
	}
	for r := 0; r < B; r++ {
		copy(p.in[(r*G)*W:(r*G+1)*W], h0[r*W:(r+1)*W])
		copy(p.in[(r*G+1)*W:(r*G+2)*W], e[r*W:(r+1)*W])
	}
	return nil
}

// step computes the logits of codebook g (1 ≤ g < groups) into p.logits,
// given codes[·][g-1] chosen by the previous sub-step.
func (p *CodePredictor) step(g int, codes []int32, B int) error {
	s := &p.w.shape
	W, G := s.predWidth, s.groups
	if g >= 2 {
		// Slot g: the predictor table row of c_{g-1} (table g-2).
		base := int32(s.talkerVocab + (g-2)*s.predVocab)
		for r := 0; r < B; r++ {
			p.ids[r] = base + codes[r*G+g-1]
		}
		e := p.lastH[:B*W]
		if err := p.b.Embed(e, p.ids[:B], 1, p.w.input); err != nil {
			return err
		}
		for r := 0; r < B; r++ {
			copy(p.in[(r*G+g)*W:(r*G+g+1)*W], e[r*W:(r+1)*W])
		}
	}
	// Rows to run: slots lo..g of every stream.
	lo := g
	switch {
	case p.path == FullPrefix:
		lo = 0
	case g == 1:
		lo = 0 // the 2-row prefill
	}
	n := g - lo + 1
	m := B * n
	x := p.x[:m*W]
	for r := 0; r < B; r++ {
		copy(x[r*n*W:(r+1)*n*W], p.in[(r*G+lo)*W:(r*G+g+1)*W])
		for j := 0; j < n; j++ {
			p.rowC[r*n+j] = p.caches[r]
			p.rowP[r*n+j] = int32(lo + j)
		}
	}
	if err := p.w.dec.forward(x, m, p.rowC[:m], p.rowP[:m], &p.s); err != nil {
		return err
	}
	last := p.lastX[:B*W]
	for r := 0; r < B; r++ {
		copy(last[r*W:(r+1)*W], x[(r*n+n-1)*W:(r*n+n)*W])
	}
	h := p.lastH[:B*W]
	if err := p.w.dec.finalNorm(h, last, B); err != nil {
		return err
	}
	return p.b.MatMul(p.logits[:B*s.predVocab], h, B, p.w.heads[g-1])
}
