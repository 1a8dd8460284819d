package predictor

import (
	"errors"
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"math"
)

// Weights are a Qwen3-TTS model's codec-token models uploaded to a Backend:
// the talker and the code predictor, both in one Precision.
//
// LoadWeights is the one place a checkpoint becomes handles; a WASI host runs
// it natively and hands the guest the handles.
type Weights struct {
	// Precision is the precision the matrices were uploaded in.
	Precision Precision
	// Talker holds the talker's handles.
	Talker *TalkerWeights
	// Predictor holds the code predictor's handles.
	Predictor *PredictorWeights
	// Guards are the residual channels whose o_proj and down_proj rows are
	// kept in fp32 (guard.go).
	Guards Guards
}

// Tensor names of a Qwen3-TTS checkpoint (docs/MODEL.md §2).
const (
	talkerPrefix    = "talker.model."
	predictorPrefix = "talker.code_predictor.model."
	textEmbedding   = "talker.model.text_embedding.weight"
)

// LoadWeights reads every talker and code-predictor tensor from src tensor by
// tensor (peak extra memory: one fused matrix) and uploads it to b in
// precision prec. The talker keeps src to gather text-embedding rows on
// demand (the 151936×2048 table is never materialised), so src must stay open
// while the weights are used. When the predictor needs no projection its
// input table is shared with the talker's codec table.
func LoadWeights(src Source, b Backend, prec Precision) (*Weights, error) {
	return LoadWeightsGuarded(src, b, prec, nil)
}

// LoadWeightsGuarded is LoadWeights with the guarded channels given (nil:
// chosen from the checkpoint's norm gains, as LoadWeights does). A WASI
// guest, which never reads weight data, loads with the host's Weights.Guards
// so both make the same matrices.
func LoadWeightsGuarded(src Source, b Backend, prec Precision, given *Guards) (*Weights, error) {
	w := &Weights{Precision: prec}
	p, err := loadPredictor(src, b, prec, given, &w.Guards)
	if err != nil {
		return nil, err
	}
	t, err := loadTalker(src, b, prec, p, given, &w.Guards)
	if err != nil {
		p.Free()
		return nil, err
	}
	w.Talker, w.Predictor = t, p
	return w, nil
}

// Free releases every handle.
func (w *Weights) Free() {
	if w.Talker != nil {
		w.Talker.Free()
	}
	if w.Predictor != nil {
		w.Predictor.Free()
	}
}

// modelShape is what the graph needs from a Config.
type modelShape struct {
	talker, pred            geometry
	talkerVocab, predVocab  int // 3072, 2048
	groups                  int // 16 codebooks per frame
	textVocab, textHidden   int // 151936, 2048
	projection              bool
	talkerHidden, predWidth int
}

// shapeOf reads the model shape from src's config and checks it.
func shapeOf(src Source) (modelShape, error) {
	c := src.Config()
	s := modelShape{
		talker:      geometryOf(c.Talker),
		pred:        geometryOf(c.Predictor),
		talkerVocab: c.TalkerVocab,
		predVocab:   c.PredictorVocab,
		groups:      c.CodeGroups,
		textVocab:   c.TextVocab,
		textHidden:  c.TextHidden,
		projection:  c.HasProjection(),
	}
	s.talkerHidden, s.predWidth = s.talker.hidden, s.pred.hidden
	if err := s.talker.check("talker"); err != nil {
		return s, err
	}
	if err := s.pred.check("code predictor"); err != nil {
		return s, err
	}
	if s.groups < 2 || s.predVocab <= 0 || s.talkerVocab <= 0 {
		return s, fmt.Errorf("predictor: %d code groups, predictor vocab %d, talker vocab %d: not a Qwen3-TTS model", s.groups, s.predVocab, s.talkerVocab)
	}
	if !s.projection && s.talkerHidden != s.predWidth {
		return s, fmt.Errorf("predictor: talker hidden %d differs from predictor hidden %d without a small_to_mtp_projection", s.talkerHidden, s.predWidth)
	}
	return s, nil
}

// codecRows is the row count of the stacked codec table: the talker's
// codec_embedding rows, then the predictor's groups-1 tables.
func (s *modelShape) codecRows() int { return s.talkerVocab + (s.groups-1)*s.predVocab }

// loader reads tensors into one reusable buffer and uploads them.
type loader struct {
	src Source
	b   Backend
	buf []float32
	got []int32 // handles made so far, freed on failure
	// given, when not nil, holds the guarded channels to use instead of
	// choosing them from the gains (a WASI guest's replay); chosen records
	// what each decoder stack used.
	given, chosen *Guards
}

// grow returns the buffer resized to n values.
func (ld *loader) grow(n int) []float32 {
	if cap(ld.buf) < n {
		ld.buf = make([]float32, n)
	}
	return ld.buf[:n]
}

// read reads the named tensor whole into dst. Every weight the loader
// uploads passes through here; a checkpoint's ReadF32 refuses a NaN or
// infinity, naming the tensor and the element (dirSource.ReadF32), and the
// synthetic models are finite by construction.
func (ld *loader) read(name string, dst []float32) error {
	err := ld.src.ReadF32(name, dst)
	if te := (*safetensors.TensorError)(nil); errors.As(err, &te) && te.Name == name {
		return err // it names the tensor already
	}
	if err != nil {
		return fmt.Errorf("predictor: load %s: %w", name, err)
	}
	return nil
}

// hollow reports whether the source's whole-tensor reads are hollow (a
// replayed load: the backend answers every upload from a record, so the
// values are never used and transforming them would be wasted work). A
// Source says so with a Hollow() bool method.
func (ld *loader) hollow() bool {
	h, ok := ld.src.(interface{ Hollow() bool })
	return ok && h.Hollow()
}

// keep records a handle for release on failure.
func (ld *loader) keep(h int32, err error) (int32, error) {
	if err == nil {
		ld.got = append(ld.got, h)
	}
	return h, err
}

// drop frees one handle made so far and forgets it.
func (ld *loader) drop(h int32) {
	for i, g := range ld.got {
		if g == h {
			ld.got = append(ld.got[:i], ld.got[i+1:]...)
			break
		}
	}
	ld.b.Free(h)
}

// abandon frees every handle made so far.
func (ld *loader) abandon() {
	for _, h := range ld.got {
		ld.b.Free(h)
	}
	ld.got = nil
}

// matrix reads the named tensors (rows[i]×cols each), stacks them along the
// output dimension and uploads one matrix in precision prec. bias names a
// bias tensor of the total row count, or is "".
func (ld *loader) matrix(names []string, rows []int, cols int, bias, prec string) (int32, error) {
	return ld.matrixScaled(names, rows, cols, bias, prec, nil)
}

// matrixScaled is matrix with every column k multiplied by colScale[k]
// (nil: none) before upload.
func (ld *loader) matrixScaled(names []string, rows []int, cols int, bias, prec string, colScale []float32) (int32, error) {
	total := 0
	for _, r := range rows {
		total += r
	}
	buf := ld.grow(total*cols + total)
	off := 0
	for i, name := range names {
		if err := ld.read(name, buf[off:off+rows[i]*cols]); err != nil {
			return -1, err
		}
		off += rows[i] * cols
	}
	if colScale != nil && !ld.hollow() {
		for r := 0; r < total; r++ {
			row := buf[r*cols : (r+1)*cols]
			for k, c := range colScale {
				row[k] *= c
			}
		}
	}
	var bv []float32
	if bias != "" {
		bv = buf[off : off+total]
		if err := ld.read(bias, bv); err != nil {
			return -1, err
		}
	}
	h, err := ld.keep(ld.b.NewMatrix(total, cols, buf[:total*cols], bv, prec))
	if err != nil {
		return -1, fmt.Errorf("predictor: upload %s: %w", names[0], err)
	}
	return h, nil
}

// vector reads and uploads a weight vector of n values.
func (ld *loader) vector(name string, n int) (int32, error) {
	buf := ld.grow(n)
	if err := ld.read(name, buf); err != nil {
		return -1, err
	}
	h, err := ld.keep(ld.b.NewVector(buf))
	if err != nil {
		return -1, fmt.Errorf("predictor: upload %s: %w", name, err)
	}
	return h, nil
}

// smoothAlpha splits an RMSNorm gain g between the normalised activation
// and the next matrix when that matrix is block-quantized int8: the norm
// keeps sign(g)·|g|^α and the matrix's input column k is multiplied by
// |g_k|^(1-α). The product is unchanged (W·(x̂⊙g) = (W·diag(|g|^(1-α)))·
// (x̂⊙sign(g)|g|^α)), but an outlier gain of 60 puts only √60 ≈ 7.7 on each
// side, so neither the activation blocks nor the weight blocks it shares
// lose most of their resolution to it (SmoothQuant's migration, with the
// gain as the per-channel scale).
const smoothAlpha = 0.5

// norm reads an RMSNorm gain and uploads it; with smooth it uploads
// sign(g)·|g|^α and returns the column scale |g|^(1-α) for the next matrix.
func (ld *loader) norm(name string, n int, smooth bool) (int32, []float32, error) {
	if !smooth {
		h, err := ld.vector(name, n)
		return h, nil, err
	}
	g := make([]float32, n)
	if err := ld.read(name, g); err != nil {
		return -1, nil, err
	}
	cs := make([]float32, n)
	for i, v := range g {
		a := math.Abs(float64(v))
		cs[i] = float32(math.Pow(a, 1-smoothAlpha))
		g[i] = float32(math.Copysign(math.Pow(a, smoothAlpha), float64(v)))
	}
	h, err := ld.keep(ld.b.NewVector(g))
	if err != nil {
		return -1, nil, fmt.Errorf("predictor: upload %s: %w", name, err)
	}
	return h, cs, nil
}

// decoder loads a decoder stack whose tensors start with prefix
// ("talker.model." or "talker.code_predictor.model.").
func (ld *loader) decoder(prefix string, g geometry, prec Precision, maxPos int) (decoder, error) {
	smooth := prec.quantized()
	d := decoder{b: ld.b, geom: g}
	qw, kvw := g.heads*g.headDim, g.kvHeads*g.headDim
	if smooth {
		var err error
		if ld.given != nil {
			d.guard = *ld.given.stack(prefix)
		} else if d.guard, err = ld.guardChannels(prefix, g); err != nil {
			return d, err
		}
	}
	if ld.chosen != nil {
		*ld.chosen.stack(prefix) = d.guard
	}
	for l := 0; l < g.layers; l++ {
		p := fmt.Sprintf("%slayers.%d.", prefix, l)
		var lw layerWeights
		var err error
		var cs []float32
		if lw.inNorm, cs, err = ld.norm(p+"input_layernorm.weight", g.hidden, smooth); err != nil {
			return d, err
		}
		if lw.qkv, err = ld.matrixScaled([]string{p + "self_attn.q_proj.weight", p + "self_attn.k_proj.weight", p + "self_attn.v_proj.weight"},
			[]int{qw, kvw, kvw}, g.hidden, "", prec.matrix(roleQKV, l, g.layers), cs); err != nil {
			return d, err
		}
		if lw.qNorm, err = ld.vector(p+"self_attn.q_norm.weight", g.headDim); err != nil {
			return d, err
		}
		if lw.kNorm, err = ld.vector(p+"self_attn.k_norm.weight", g.headDim); err != nil {
			return d, err
		}
		if lw.o, lw.oGuard, err = ld.guardedMatrix(p+"self_attn.o_proj.weight", g.hidden, qw, prec.matrix(roleO, l, g.layers), d.guard); err != nil {
			return d, err
		}
		if lw.postNorm, cs, err = ld.norm(p+"post_attention_layernorm.weight", g.hidden, smooth); err != nil {
			return d, err
		}
		if lw.gateUp, err = ld.matrixScaled([]string{p + "mlp.gate_proj.weight", p + "mlp.up_proj.weight"},
			[]int{g.inter, g.inter}, g.hidden, "", prec.matrix(roleGateUp, l, g.layers), cs); err != nil {
			return d, err
		}
		if lw.down, lw.downGuard, err = ld.guardedMatrix(p+"mlp.down_proj.weight", g.hidden, g.inter, prec.matrix(roleDown, l, g.layers), d.guard); err != nil {
			return d, err
		}
		d.layers = append(d.layers, lw)
	}
	var err error
	if d.norm, err = ld.vector(prefix+"norm.weight", g.hidden); err != nil {
		return d, err
	}
	if d.rope, err = ld.keep(ld.b.NewRope(g.headDim, maxPos, g.theta)); err != nil {
		return d, fmt.Errorf("predictor: rope for %s: %w", prefix, err)
	}
	return d, nil
}

// codecTableNames lists the stacked codec table's tensors in row order.
func (s *modelShape) codecTableNames() ([]string, []int) {
	names := []string{talkerPrefix + "codec_embedding.weight"}
	rows := []int{s.talkerVocab}
	for g := 0; g < s.groups-1; g++ {
		names = append(names, fmt.Sprintf("%scodec_embedding.%d.weight", predictorPrefix, g))
		rows = append(rows, s.predVocab)
	}
	return names, rows
}

// codecTable loads the stacked codec table (talker width), or, with proj ≥ 0,
// every row mapped through the projection proj (predictor width).
func (ld *loader) codecTable(s *modelShape, proj int32) (int32, error) {
	width := s.talkerHidden
	if proj >= 0 {
		width = s.predWidth
	}
	t, err := ld.keep(ld.b.NewTable(s.codecRows(), width, nil))
	if err != nil {
		return -1, fmt.Errorf("predictor: codec table: %w", err)
	}
	names, rows := s.codecTableNames()
	row0 := 0
	const chunk = 256
	var out []float32
	for i, name := range names {
		buf := ld.grow(rows[i] * s.talkerHidden)
		if err := ld.read(name, buf); err != nil {
			return -1, err
		}
		if proj < 0 {
			if err := ld.b.WriteTable(t, row0, buf); err != nil {
				return -1, fmt.Errorf("predictor: upload %s: %w", name, err)
			}
		} else {
			if out == nil {
				out = make([]float32, chunk*width)
			}
			for r := 0; r < rows[i]; r += chunk {
				n := min(chunk, rows[i]-r)
				o := out[:n*width]
				if err := ld.b.MatMul(o, buf[r*s.talkerHidden:(r+n)*s.talkerHidden], n, proj); err != nil {
					return -1, fmt.Errorf("predictor: project %s: %w", name, err)
				}
				if err := ld.b.WriteTable(t, row0+r, o); err != nil {
					return -1, fmt.Errorf("predictor: upload %s: %w", name, err)
				}
			}
		}
		row0 += rows[i]
	}
	return t, nil
}

// errNotLoaded reports use of freed weights.
var errNotLoaded = errors.New("predictor: weights freed or not loaded")
