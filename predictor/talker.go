package predictor

import (
	"fmt"
	"math"
)

// Talker runs the talker transformer: a prefill of T prompt rows per
// sequence, then batched decode steps of one row for each of B sequences in
// one pass over the weights; each step yields the final-norm hidden h and
// the codec_head logits. It also builds the talker's input rows: codec
// embeddings, the 16-codebook frame sum and the text path. A Talker is used
// by one goroutine at a time; decode steps allocate nothing.
type Talker struct {
	w        *TalkerWeights
	b        Backend
	maxBatch int
	maxLen   int

	s     scratch
	x     []float32 // residual rows
	rowC  []int32
	rowP  []int32
	lastX []float32 // last prompt row of each sequence of a batched prefill
	ids   []int32   // frame-sum ids, maxBatch×groups
	text  []float32 // text rows [n, textHidden]
	textH []float32 // fc1 output
}

// TalkerOptions configure NewTalker.
type TalkerOptions struct {
	// MaxBatch is the most sequences one Decode takes (≥ 1).
	MaxBatch int
	// MaxLen bounds every sequence's positions (max_model_len); 0 means the
	// model's max_position_embeddings.
	MaxLen int
}

// Validate refuses options NewTalker cannot honour.
func (o TalkerOptions) Validate() error {
	if o.MaxBatch < 1 || o.MaxBatch > 1<<16 {
		return fmt.Errorf("predictor: talker max batch %d outside [1, 65536]", o.MaxBatch)
	}
	if o.MaxLen < 0 {
		return fmt.Errorf("predictor: talker max length %d negative", o.MaxLen)
	}
	return nil
}

// NewTalker prepares buffers for opts.MaxBatch sequences.
func NewTalker(w *TalkerWeights, opts TalkerOptions) (*Talker, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if w == nil || w.dec.layers == nil {
		return nil, errNotLoaded
	}
	ropeMax := w.dec.geom.maxPos
	if ropeMax <= 0 || ropeMax > 32768 {
		ropeMax = 32768
	}
	maxLen := opts.MaxLen
	if maxLen == 0 {
		maxLen = ropeMax
	}
	if maxLen > ropeMax {
		return nil, fmt.Errorf("predictor: talker max length %d above the model's %d positions", maxLen, ropeMax)
	}
	t := &Talker{w: w, b: w.b, maxBatch: opts.MaxBatch, maxLen: maxLen}
	t.grow(opts.MaxBatch)
	t.lastX = make([]float32, opts.MaxBatch*w.shape.talkerHidden)
	t.ids = make([]int32, opts.MaxBatch*w.shape.groups)
	return t, nil
}

// grow sizes the row buffers for m rows.
func (t *Talker) grow(m int) {
	g := &t.w.dec.geom
	t.s.ensure(g, len(t.w.dec.guard), m)
	if len(t.rowC) < m {
		t.x = make([]float32, m*g.hidden)
		t.rowC = make([]int32, m)
		t.rowP = make([]int32, m)
	}
}

// Weights returns the talker's weights.
func (t *Talker) Weights() *TalkerWeights { return t.w }

// Prefill runs T = len(embeds)/hidden prompt rows of seq (positions
// seq.Pos().. onward, causal) and writes the final-norm hidden (hidden
// values) and codec_head logits (vocab values) of the last row. The buffers
// grow on the first prefill of a new length.
func (t *Talker) Prefill(seq *Sequence, embeds, hidden, logits []float32) error {
	H := t.w.shape.talkerHidden
	if seq == nil || seq.t != t || seq.cache < 0 {
		return fmt.Errorf("predictor: prefill of a closed or foreign sequence")
	}
	if len(embeds) == 0 || len(embeds)%H != 0 {
		return fmt.Errorf("predictor: prefill embeds of %d values is not a positive multiple of hidden %d", len(embeds), H)
	}
	T := len(embeds) / H
	if seq.pos+T > seq.maxLen {
		return fmt.Errorf("predictor: prefill of %d rows at position %d overflows the sequence's %d positions", T, seq.pos, seq.maxLen)
	}
	if len(hidden) != H || len(logits) != t.w.shape.talkerVocab {
		return fmt.Errorf("predictor: prefill outputs of %d hidden and %d logits, want %d and %d", len(hidden), len(logits), H, t.w.shape.talkerVocab)
	}
	t.grow(T)
	x := t.x[:T*H]
	copy(x, embeds)
	for i := 0; i < T; i++ {
		t.rowC[i] = seq.cache
		t.rowP[i] = int32(seq.pos + i)
	}
	if err := t.w.dec.forward(x, T, t.rowC[:T], t.rowP[:T], &t.s); err != nil {
		return fmt.Errorf("predictor: talker prefill: %w", err)
	}
	seq.pos += T
	return t.head(x[(T-1)*H:], 1, hidden, logits)
}

// head writes the final norm of m residual rows and their logits.
func (t *Talker) head(x []float32, m int, hidden, logits []float32) error {
	if err := t.w.dec.finalNorm(hidden, x, m); err != nil {
		return fmt.Errorf("predictor: talker final norm: %w", err)
	}
	if err := t.b.MatMul(logits, hidden, m, t.w.head); err != nil {
		return fmt.Errorf("predictor: codec_head: %w", err)
	}
	return nil
}

// Decode runs one row for each of B = len(seqs) sequences in one pass:
// embeds (B×hidden) is the next input row of each, and hidden (B×hidden)
// and logits (B×vocab) receive each row's final-norm hidden and codec_head
// logits. Every sequence advances one position.
func (t *Talker) Decode(seqs []*Sequence, embeds, hidden, logits []float32) error {
	H, V := t.w.shape.talkerHidden, t.w.shape.talkerVocab
	B := len(seqs)
	if B < 1 || B > t.maxBatch {
		return fmt.Errorf("predictor: decode batch %d outside [1, %d]", B, t.maxBatch)
	}
	if len(embeds) != B*H || len(hidden) != B*H || len(logits) != B*V {
		return fmt.Errorf("predictor: decode of %d rows with %d embeds, %d hidden, %d logits (want %d, %d, %d)", B, len(embeds), len(hidden), len(logits), B*H, B*H, B*V)
	}
	for i, s := range seqs {
		if s == nil || s.t != t || s.cache < 0 {
			return fmt.Errorf("predictor: decode row %d: closed or foreign sequence", i)
		}
		if s.pos >= s.maxLen {
			return fmt.Errorf("predictor: decode row %d: sequence full (%d positions)", i, s.maxLen)
		}
		for j := 0; j < i; j++ {
			if seqs[j] == s {
				return fmt.Errorf("predictor: decode rows %d and %d are the same sequence", j, i)
			}
		}
		t.rowC[i] = s.cache
		t.rowP[i] = int32(s.pos)
	}
	x := t.x[:B*H]
	copy(x, embeds)
	if err := t.w.dec.forward(x, B, t.rowC[:B], t.rowP[:B], &t.s); err != nil {
		return fmt.Errorf("predictor: talker decode: %w", err)
	}
	for _, s := range seqs {
		s.pos++
	}
	return t.head(x, B, hidden, logits)
}

// CodecEmbed writes the talker codec_embedding rows of ids (each <
// vocab) into out (len(ids)×hidden): the codec track of prompt rows.
func (t *Talker) CodecEmbed(out []float32, ids []int32) error {
	for i, id := range ids {
		if id < 0 || int(id) >= t.w.shape.talkerVocab {
			return fmt.Errorf("predictor: codec id[%d] = %d outside [0, %d)", i, id, t.w.shape.talkerVocab)
		}
	}
	return t.b.Embed(out, ids, 1, t.w.codec)
}

// FrameEmbed writes, for each of B frames (codes B×groups, codebook 0
// first), the next talker input's codec part: codec_embedding[c0] +
// Σ_{g≥1} code_predictor.codec_embedding[g-1][c_g] (B×hidden). The trailing
// text row or tts_pad is added by the caller.
func (t *Talker) FrameEmbed(out []float32, codes []int32) error {
	s := &t.w.shape
	G := s.groups
	if len(codes) == 0 || len(codes)%G != 0 || len(codes)/G > t.maxBatch {
		return fmt.Errorf("predictor: frame codes of %d values: want 1..%d rows of %d", len(codes), t.maxBatch, G)
	}
	B := len(codes) / G
	for r := 0; r < B; r++ {
		c0 := codes[r*G]
		if c0 < 0 || int(c0) >= s.talkerVocab {
			return fmt.Errorf("predictor: frame %d codebook 0 = %d outside [0, %d)", r, c0, s.talkerVocab)
		}
		t.ids[r*G] = c0
		for g := 1; g < G; g++ {
			c := codes[r*G+g]
			if c < 0 || int(c) >= s.predVocab {
				return fmt.Errorf("predictor: frame %d codebook %d = %d outside [0, %d)", r, g, c, s.predVocab)
			}
			t.ids[r*G+g] = int32(s.talkerVocab+(g-1)*s.predVocab) + c
		}
	}
	return t.b.Embed(out, t.ids[:B*G], G, t.w.codec)
}

// TextEmbed writes the text track of len(ids) prompt rows into out
// (len(ids)×hidden): text_projection(text_embedding[id]) =
// fc2(silu(fc1(e))), biases included. The embedding rows are read from the
// Source one at a time.
func (t *Talker) TextEmbed(out []float32, ids []int32) error {
	s := &t.w.shape
	n := len(ids)
	if n == 0 || len(out) != n*s.talkerHidden {
		return fmt.Errorf("predictor: text embed of %d ids into %d values (want %d)", n, len(out), n*s.talkerHidden)
	}
	if cap(t.text) < n*s.textHidden {
		t.text = make([]float32, n*s.textHidden)
		t.textH = make([]float32, n*s.textHidden)
	}
	e, h := t.text[:n*s.textHidden], t.textH[:n*s.textHidden]
	for i, id := range ids {
		if id < 0 || int(id) >= s.textVocab {
			return fmt.Errorf("predictor: text id[%d] = %d outside [0, %d)", i, id, s.textVocab)
		}
		if err := t.w.src.ReadRowsF32(textEmbedding, int(id), 1, e[i*s.textHidden:(i+1)*s.textHidden]); err != nil {
			return fmt.Errorf("predictor: text embedding row %d: %w", id, err)
		}
	}
	if err := t.b.MatMul(h, e, n, t.w.textFC1); err != nil {
		return fmt.Errorf("predictor: text_projection fc1: %w", err)
	}
	for i, v := range h {
		h[i] = float32(float64(v) / (1 + math.Exp(-float64(v))))
	}
	if err := t.b.MatMul(out, h, n, t.w.textFC2); err != nil {
		return fmt.Errorf("predictor: text_projection fc2: %w", err)
	}
	return nil
}

// PrefillPassRows is the most prompt rows one pass of PrefillBatch runs
// through the layers (one GEMM of at most this many rows per matrix): the
// weights are read once per pass, and the activation scratch never grows
// past this many rows however long the prompts are.
const PrefillPassRows = 64

// PrefillBatch runs the prompts of B = len(seqs) sequences together, as if
// each had been given to Prefill on its own: sequence i takes rows[i] ≥ 1
// prompt rows (positions seqs[i].Pos().. onward, causal within the
// sequence), and embeds holds every sequence's rows one after the other
// (Σ rows[i] × hidden). hidden (B×hidden) and logits (B×vocab) receive each
// sequence's last-row final-norm hidden and codec_head logits. The rows of
// all prompts share each pass over the weights, in passes of at most
// PrefillPassRows rows; a prompt may span passes. Every argument is checked
// before any cache is written, and the sequences advance only on success.
// After the first call of PrefillPassRows or more rows it allocates nothing.
func (t *Talker) PrefillBatch(seqs []*Sequence, rows []int, embeds, hidden, logits []float32) error {
	H, V := t.w.shape.talkerHidden, t.w.shape.talkerVocab
	B := len(seqs)
	if B < 1 || B > t.maxBatch {
		return fmt.Errorf("predictor: prefill batch %d outside [1, %d]", B, t.maxBatch)
	}
	if len(rows) != B {
		return fmt.Errorf("predictor: prefill batch of %d sequences with %d row counts", B, len(rows))
	}
	total := 0
	for i, s := range seqs {
		if s == nil || s.t != t || s.cache < 0 {
			return fmt.Errorf("predictor: prefill sequence %d: closed or foreign sequence", i)
		}
		for j := 0; j < i; j++ {
			if seqs[j] == s {
				return fmt.Errorf("predictor: prefill sequences %d and %d are the same sequence", j, i)
			}
		}
		n := rows[i]
		if n < 1 || n > s.maxLen-s.pos {
			return fmt.Errorf("predictor: prefill sequence %d: %d rows at position %d outside [1, %d]", i, n, s.pos, s.maxLen-s.pos)
		}
		total += n
	}
	if len(embeds) != total*H {
		return fmt.Errorf("predictor: prefill embeds of %d values, want %d rows of hidden %d (%d)", len(embeds), total, H, total*H)
	}
	if len(hidden) != B*H || len(logits) != B*V {
		return fmt.Errorf("predictor: prefill outputs of %d hidden and %d logits, want %d and %d", len(hidden), len(logits), B*H, B*V)
	}
	t.grow(min(total, PrefillPassRows))

	// Walk the rows in passes; (i, k) is the next row: row k of sequence i.
	i, k := 0, 0
	for r0 := 0; r0 < total; {
		m := min(total-r0, PrefillPassRows)
		x := t.x[:m*H]
		copy(x, embeds[r0*H:(r0+m)*H])
		pi, pk := i, k
		for r := 0; r < m; r++ {
			t.rowC[r] = seqs[i].cache
			t.rowP[r] = int32(seqs[i].pos + k)
			if k++; k == rows[i] {
				i, k = i+1, 0
			}
		}
		if err := t.w.dec.forward(x, m, t.rowC[:m], t.rowP[:m], &t.s); err != nil {
			return fmt.Errorf("predictor: talker batched prefill rows [%d, %d): %w", r0, r0+m, err)
		}
		// Keep the last row of every sequence that ends in this pass.
		i, k = pi, pk
		for r := 0; r < m; r++ {
			if k++; k == rows[i] {
				copy(t.lastX[i*H:(i+1)*H], x[r*H:(r+1)*H])
				i, k = i+1, 0
			}
		}
		r0 += m
	}
	for j, s := range seqs {
		s.pos += rows[j]
	}
	return t.head(t.lastX[:B*H], B, hidden, logits)
}
