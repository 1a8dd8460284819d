package core

import "fmt"

// Embedder writes prompts as talker input embeddings with a model's tables:
// text rows through TextEmbed, codec rows through CodecEmbed, the x-vector
// row as given, reference frames through FrameEmbed (the sum of their 16
// codebook embeddings). It keeps its scratch between calls; one goroutine
// at a time.
type Embedder struct {
	m        Model
	h, maxB  int
	textIDs  []int32
	codecIDs []int32
	buf      []float32
}

// NewEmbedder returns an Embedder over m's embedding tables.
func NewEmbedder(m Model) *Embedder {
	return &Embedder{m: m, h: m.Dims().Hidden, maxB: max(1, m.MaxBatch())}
}

// Rows writes the embeddings of p's prefill rows into x (len(p.Rows)×Hidden):
// each row the sum of its text track and its codec track.
func (e *Embedder) Rows(x []float32, p *Prompt) error {
	H := e.h
	rows := p.Rows
	if len(x) != len(rows)*H {
		return fmt.Errorf("core: prompt embeddings of %d values for %d rows of %d", len(x), len(rows), H)
	}
	clear(x)
	e.textIDs, e.codecIDs = e.textIDs[:0], e.codecIDs[:0]
	for _, r := range rows {
		if r.Text != NoID {
			e.textIDs = append(e.textIDs, r.Text)
		}
		if r.Part == CodecRow && r.Codec != NoID {
			e.codecIDs = append(e.codecIDs, r.Codec)
		}
	}
	add := func(ids []int32, embed func([]float32, []int32) error, pick func(PromptRow) bool) error {
		if len(ids) == 0 {
			return nil
		}
		buf := e.scratch(len(ids) * H)
		if err := embed(buf, ids); err != nil {
			return err
		}
		j := 0
		for i, r := range rows {
			if !pick(r) {
				continue
			}
			addRow(x[i*H:(i+1)*H], buf[j*H:(j+1)*H])
			j++
		}
		return nil
	}
	if err := add(e.textIDs, e.m.TextEmbed, func(r PromptRow) bool { return r.Text != NoID }); err != nil {
		return fmt.Errorf("text track: %w", err)
	}
	if err := add(e.codecIDs, e.m.CodecEmbed, func(r PromptRow) bool { return r.Part == CodecRow && r.Codec != NoID }); err != nil {
		return fmt.Errorf("codec track: %w", err)
	}
	return e.cloneRows(x, p)
}

// cloneRows adds the x-vector and reference-frame codec parts of p's rows.
func (e *Embedder) cloneRows(x []float32, p *Prompt) error {
	H := e.h
	var frames []int // row index of each reference-frame row, in row order
	for i, r := range p.Rows {
		switch r.Part {
		case CodecXVector:
			if p.Clone == nil || len(p.Clone.XVector) != H {
				return fmt.Errorf("core: prompt row %d: x-vector row without an x-vector of %d values", i, H)
			}
			addRow(x[i*H:(i+1)*H], p.Clone.XVector)
		case CodecRefFrame:
			frames = append(frames, i)
		}
	}
	if len(frames) == 0 {
		return nil
	}
	codes := p.Clone.RefCodes
	for k := 0; k < len(frames); k += e.maxB {
		n := min(e.maxB, len(frames)-k)
		buf := e.scratch(n * H)
		// Reference frames are consecutive rows in frame order (BuildPrompt).
		f0 := int(p.Rows[frames[k]].Codec)
		if f0 < 0 || (f0+n)*Codebooks > len(codes) {
			return fmt.Errorf("core: prompt row %d: reference frame %d outside the %d frames", frames[k], f0, len(codes)/Codebooks)
		}
		if err := e.m.FrameEmbed(buf, codes[f0*Codebooks:(f0+n)*Codebooks]); err != nil {
			return fmt.Errorf("reference frames %d..%d: %w", f0, f0+n-1, err)
		}
		for j := 0; j < n; j++ {
			i := frames[k+j]
			if int(p.Rows[i].Codec) != f0+j {
				return fmt.Errorf("core: prompt row %d: reference frame %d out of order (want %d)", i, p.Rows[i].Codec, f0+j)
			}
			addRow(x[i*H:(i+1)*H], buf[j*H:(j+1)*H])
		}
	}
	return nil
}

// scratch returns n values of the embedder's scratch (contents unspecified).
func (e *Embedder) scratch(n int) []float32 {
	e.buf = grow(e.buf, n)
	return e.buf[:n]
}

// addRow adds src to dst element-wise.
func addRow(dst, src []float32) {
	for k := range dst {
		dst[k] += src[k]
	}
}

// Trailing writes the text-track rows of p's trailing ids into x
// (len(p.Trailing)×Hidden).
func (e *Embedder) Trailing(x []float32, p *Prompt) error {
	if len(x) != len(p.Trailing)*e.h {
		return fmt.Errorf("core: trailing embeddings of %d values for %d rows of %d", len(x), len(p.Trailing), e.h)
	}
	if len(p.Trailing) == 0 {
		return nil
	}
	return e.m.TextEmbed(x, p.Trailing)
}
