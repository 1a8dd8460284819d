package codec

import "fmt"

// scratch holds the activation buffers of a decode call; they grow to the
// largest call seen and are reused.
type scratch struct {
	bufs [8][]float32
	ids  []int32
	kv   []int32
	pos  []int32

	// DecodeBatch's grouping of unequal frame counts, reused
	done []bool
	gs   []*Stream
	gc   [][][Codebooks]int32
	gp   [][]float32
	// decodeGroup's passes: each stream's codes and samples of one pass
	pc [][][Codebooks]int32
	pp [][]float32
}

// buf returns scratch slot i with n elements (contents unspecified).
func (s *scratch) buf(i, n int) []float32 {
	if cap(s.bufs[i]) < n {
		s.bufs[i] = make([]float32, n)
	}
	return s.bufs[i][:n]
}

// Scratch slots; a stage never uses one slot for two live values.
const (
	sX   = iota // the running activation
	sY          // the next activation
	sCat        // history rows + new rows, per batch segment
	sT1
	sT2
	sT3
	sCarry
)

// DecodeBatch decodes frames of several streams at once: codes[b] goes to
// streams[b] and its samples to pcm[b] (len(codes[b])·SamplesPerFrame
// each). Streams given the same number of frames go through each layer as
// one matrix product (streams with other counts in further passes). The
// samples equal those of decoding each stream on its own. Every argument is
// checked before any stream moves: a refused call changes nothing.
func (m *Model) DecodeBatch(streams []*Stream, codes [][][Codebooks]int32, pcm [][]float32) error {
	if len(pcm) != len(streams) {
		return errorf(ErrArgs, "%d streams, %d code lists, %d PCM buffers", len(streams), len(codes), len(pcm))
	}
	return m.run(streams, codes, pcm)
}

// run is DecodeBatch, or with pcm nil the advance of the layers before the
// upsampling alone (Stream.Advance).
func (m *Model) run(streams []*Stream, codes [][][Codebooks]int32, pcm [][]float32) error {
	if m.closed {
		return errorf(ErrArgs, "model closed")
	}
	B := len(streams)
	if len(codes) != B {
		return errorf(ErrArgs, "%d streams, %d code lists", B, len(codes))
	}
	if B == 0 {
		return nil
	}
	for b, s := range streams {
		if s == nil || s.closed || s.m != m {
			return errorf(ErrArgs, "stream %d is nil, closed or of another model", b)
		}
		for c := b + 1; c < B; c++ {
			if streams[c] == s {
				return errorf(ErrArgs, "stream %d appears twice in one batch", b)
			}
		}
		n := len(codes[b])
		if pcm != nil && len(pcm[b]) != n*m.spf {
			return errorf(ErrArgs, "stream %d: PCM buffer holds %d samples, %d frames need %d", b, len(pcm[b]), n, n*m.spf)
		}
		if int64(s.pos)+int64(n) > 1<<30 {
			return errorf(ErrArgs, "stream %d: %d frames is past the position limit", b, int64(s.pos)+int64(n))
		}
		for t, f := range codes[b] {
			for k, v := range f {
				if v < 0 || int(v) >= m.cfg.CodebookSize {
					return errorf(ErrCodes, "stream %d frame %d codebook %d: code %d outside [0, %d)", b, t, k, v, m.cfg.CodebookSize)
				}
			}
		}
	}
	n := len(codes[0])
	same := true
	for _, c := range codes {
		same = same && len(c) == n
	}
	if same {
		return m.decodeGroup(streams, codes, pcm)
	}
	// Unequal counts: one pass per distinct count, in order of first use.
	sc := &m.scratch
	if cap(sc.done) < B {
		sc.done = make([]bool, B)
	}
	done := sc.done[:B]
	clear(done)
	gs, gc, gp := sc.gs, sc.gc, sc.gp
	defer func() {
		// keep the buffers, drop the references to the caller's data
		clear(gs[:cap(gs)])
		clear(gc[:cap(gc)])
		clear(gp[:cap(gp)])
		sc.gs, sc.gc, sc.gp = gs[:0], gc[:0], gp[:0]
	}()
	for b := range streams {
		if done[b] {
			continue
		}
		gs, gc, gp = gs[:0], gc[:0], gp[:0]
		for c := b; c < B; c++ {
			if !done[c] && len(codes[c]) == len(codes[b]) {
				done[c] = true
				gs, gc = append(gs, streams[c]), append(gc, codes[c])
				if pcm != nil {
					gp = append(gp, pcm[c])
				}
			}
		}
		if err := m.decodeGroup(gs, gc, nilIfEmpty(gp)); err != nil {
			return err
		}
	}
	return nil
}

// decodeGroup decodes checked arguments of equal frame counts, in passes
// of at most m.PassFrames() stream-frames (each pass takes the next frames
// of every stream; the decoder is an exact stream, so the samples are
// those of one pass).
func (m *Model) decodeGroup(streams []*Stream, codes [][][Codebooks]int32, pcm [][]float32) error {
	n := len(codes[0])
	if n == 0 {
		return nil
	}
	step := max(1, m.PassFrames()/len(streams))
	if step >= n {
		return m.decodePass(streams, codes, pcm, n)
	}
	sc := &m.scratch
	pc, pp := sc.pc[:0], sc.pp[:0]
	defer func() {
		clear(pc[:cap(pc)])
		clear(pp[:cap(pp)])
		sc.pc, sc.pp = pc[:0], pp[:0]
	}()
	for t := 0; t < n; t += step {
		k := min(step, n-t)
		pc, pp = pc[:0], pp[:0]
		for b := range streams {
			pc = append(pc, codes[b][t:t+k])
			if pcm != nil {
				pp = append(pp, pcm[b][t*m.spf:(t+k)*m.spf])
			}
		}
		if err := m.decodePass(streams, pc, nilIfEmpty(pp), k); err != nil {
			return err
		}
	}
	return nil
}

// nilIfEmpty returns p, or nil when it holds nothing (an advance's PCM).
func nilIfEmpty(p [][]float32) [][]float32 {
	if len(p) == 0 {
		return nil
	}
	return p
}

// decodePass runs one graph pass of n frames of every stream (with pcm
// nil, the layers before the upsampling only).
func (m *Model) decodePass(streams []*Stream, codes [][][Codebooks]int32, pcm [][]float32, n int) error {
	if m.passHook != nil {
		m.passHook()
	}
	if err := m.decode(streams, codes, pcm, n); err != nil {
		return fmt.Errorf("codec: decode: %w", err)
	}
	for _, s := range streams {
		s.pos += int32(n)
	}
	return nil
}

// decode runs the graph on checked arguments; with pcm nil it stops after
// the transformer (Stream.Advance).
func (m *Model) decode(streams []*Stream, codes [][][Codebooks]int32, pcm [][]float32, n int) error {
	c := &m.cfg
	be := m.b
	sc := &m.scratch
	B := len(streams)
	R := B * n // rows
	q, cd, L := c.CodebookDim/2, c.CodebookDim, c.LatentDim

	// RVQ: codebook 0 and the sum of codebooks 1..15, each projected.
	if cap(sc.ids) < R*(Codebooks-1) {
		sc.ids = make([]int32, R*(Codebooks-1))
	}
	ids := sc.ids[:R]
	for b := range codes {
		for t, f := range codes[b] {
			ids[b*n+t] = f[0]
		}
	}
	e0 := sc.buf(sT1, R*q)
	if err := be.Embed(e0, ids, 1, m.rvqFirst); err != nil {
		return err
	}
	x := sc.buf(sX, R*cd)
	if err := m.linear(x, e0, R, m.projFirst); err != nil {
		return err
	}
	ids = sc.ids[:R*(Codebooks-1)]
	for b := range codes {
		for t, f := range codes[b] {
			r := (b*n + t) * (Codebooks - 1)
			for k := 1; k < Codebooks; k++ {
				ids[r+k-1] = int32(k-1)*int32(c.CodebookSize) + f[k]
			}
		}
	}
	if err := be.Embed(e0, ids, Codebooks-1, m.rvqRest); err != nil {
		return err
	}
	y := sc.buf(sY, R*cd)
	if err := m.linear(y, e0, R, m.projRest); err != nil {
		return err
	}
	if err := addInto(m.add, x, y); err != nil {
		return err
	}
	m.stage(StageRVQ)

	// pre_conv: causal k=3.
	y = sc.buf(sY, R*L)
	if err := m.causalConv(y, x, n, cd, 2, m.preConv, streams, func(s *Stream) []float32 { return s.preTail }); err != nil {
		return err
	}
	x = m.swap(R * L)
	m.stage(StagePreConv)

	// The transformer.
	if err := m.transformer(x, streams, n); err != nil {
		return err
	}
	x = sc.bufs[sX][:R*L]
	m.stage(StageTransformer)
	if pcm == nil { // Stream.Advance: the later layers keep their state
		return nil
	}

	// Upsample stages: transposed conv k=s=r, then a ConvNeXt block.
	rows := n
	for j, r := range c.UpsamplingRatios {
		u := &m.ups[j]
		y = sc.buf(sY, B*rows*r*L)
		carry := sc.buf(sCarry, 0)
		if err := be.ConvTranspose(y, x, rows, B, u.tconv, carry); err != nil {
			return err
		}
		rows *= r
		x = m.swap(B * rows * L)
		if err := m.convNeXt(x, rows, u, streams, j); err != nil {
			return err
		}
	}
	m.stage(StageUpsample)

	// Vocoder: conv k=7, the blocks, SnakeBeta, conv k=7 to one channel.
	y = sc.buf(sY, B*rows*c.DecoderDim)
	if err := m.causalConv(y, x, rows, L, 6, m.conv0, streams, func(s *Stream) []float32 { return s.conv0Tail }); err != nil {
		return err
	}
	x = m.swap(B * rows * c.DecoderDim)
	m.stage(StageVocoderIn)
	for i, st := range c.UpsampleRates {
		in, out := c.blockDims(i)
		bw := &m.blocks[i]
		carry := sc.buf(sCarry, B*st*out)
		for b, s := range streams {
			copy(carry[b*st*out:], s.blkCarry[i])
		}
		y = sc.buf(sY, B*rows*st*out)
		if err := m.snakeConvT(y, x, rows, in, B, bw, carry); err != nil {
			return err
		}
		for b, s := range streams {
			copy(s.blkCarry[i], carry[b*st*out:(b+1)*st*out])
		}
		rows *= st
		x = m.swap(B * rows * out)
		for u := 0; u < 3; u++ {
			if err := m.resUnit(x, rows, out, &bw.res[u], streams, i, u); err != nil {
				return err
			}
		}
		m.stage(StageBlock1 + Stage(min(i, 3)))
	}
	od := c.outDim()
	y = sc.buf(sY, B*rows)
	if err := m.causalConvSnake(y, x, rows, od, 6, m.convOut, true, m.snakeOut, streams, func(s *Stream) []float32 { return s.outTail }); err != nil {
		return err
	}
	for b := range streams {
		seg := y[b*rows : (b+1)*rows]
		dst := pcm[b]
		for i, v := range seg {
			dst[i] = min(max(v, -1), 1)
		}
	}
	m.stage(StageOut)
	return nil
}

// snakeConvT runs a vocoder block's Snake and transposed conv on x
// (batch segments of rows rows of in channels) into y: in one call when
// the backend fuses them, else as the two.
func (m *Model) snakeConvT(y, x []float32, rows, in, B int, bw *blockW, carry []float32) error {
	if m.snakeConvTB != nil {
		fused, err := m.snakeConvTB.SnakeConvTranspose(y, x, rows, B, bw.snake, bw.tconv, carry)
		if err != nil || fused {
			return err
		}
	}
	t := m.scratch.buf(sT1, B*rows*in)
	if err := m.b.Snake(t, x, B*rows, bw.snake); err != nil {
		return err
	}
	return m.b.ConvTranspose(y, t, rows, B, bw.tconv, carry)
}

// swap exchanges the running and next activation slots and returns the new
// running one (the old next).
func (m *Model) swap(n int) []float32 {
	sc := &m.scratch
	sc.bufs[sX], sc.bufs[sY] = sc.bufs[sY], sc.bufs[sX]
	return sc.bufs[sX][:n]
}

// causalConv runs a causal conv of hist history rows over x (batch segments
// of rows rows of cin channels), taking each stream's history from tail and
// leaving its last hist input rows there.
func (m *Model) causalConv(y, x []float32, rows, cin, hist int, w int32, streams []*Stream, tail func(*Stream) []float32) error {
	return m.causalConvSnake(y, x, rows, cin, hist, w, false, 0, streams, tail)
}

// causalConvSnake is causalConv on Snake(x) (SnakeBeta snake, when act)
// instead of x: the activation writes straight into the conv's input
// behind each stream's tail, sparing a copy of the whole input (a sixth of
// a decode when it went through a separate buffer). Snake's rows are
// independent, so per-stream calls give the bits of one call.
func (m *Model) causalConvSnake(y, x []float32, rows, cin, hist int, w int32, act bool, snake int32, streams []*Stream, tail func(*Stream) []float32) error {
	seg := (hist + rows) * cin
	cat := m.scratch.buf(sCat, len(streams)*seg)
	for b, s := range streams {
		dst := cat[b*seg : (b+1)*seg]
		tl := tail(s)
		copy(dst, tl)
		src := x[b*rows*cin : (b+1)*rows*cin]
		if act {
			if err := m.b.Snake(dst[hist*cin:], src, rows, snake); err != nil {
				return err
			}
		} else {
			copy(dst[hist*cin:], src)
		}
		copy(tl, dst[rows*cin:])
	}
	return m.b.Conv(y, cat, rows, len(streams), w)
}

// convNeXt applies upsample stage j's ConvNeXt block to x in place.
func (m *Model) convNeXt(x []float32, rows int, u *upW, streams []*Stream, j int) error {
	be := m.b
	L := m.cfg.LatentDim
	R := len(streams) * rows
	seg := (6 + rows) * L
	cat := m.scratch.buf(sCat, len(streams)*seg)
	for b, s := range streams {
		dst := cat[b*seg : (b+1)*seg]
		copy(dst, s.dwTail[j])
		copy(dst[6*L:], x[b*rows*L:(b+1)*rows*L])
		copy(s.dwTail[j], dst[rows*L:])
	}
	d := m.scratch.buf(sT1, R*L)
	if err := be.Depthwise(d, cat, rows, len(streams), u.dw); err != nil {
		return err
	}
	ln := m.scratch.buf(sT2, R*L)
	if err := be.LayerNorm(ln, d, R, u.lnW, u.lnB, 1e-6); err != nil {
		return err
	}
	p1 := m.scratch.buf(sCat, R*4*L)
	if err := m.linear(p1, ln, R, u.pw1); err != nil {
		return err
	}
	g := m.scratch.buf(sT3, R*4*L)
	if err := be.GELU(g, p1); err != nil {
		return err
	}
	if err := m.linear(d, g, R, u.pw2); err != nil {
		return err
	}
	if err := be.Scale(ln, d, R, u.gamma); err != nil {
		return err
	}
	if err := addInto(m.add, x, ln); err != nil {
		return err
	}
	return nil
}

// resUnit applies residual unit u of block i to x (rows of ch channels per
// segment) in place: x += conv2(snake2(conv1(snake1(x)))).
func (m *Model) resUnit(x []float32, rows, ch int, r *resW, streams []*Stream, i, u int) error {
	be := m.b
	R := len(streams) * rows
	if m.resUnitB != nil {
		H := 6 * dilation(u) * ch
		hist := m.scratch.buf(sT1, len(streams)*H)
		for b, s := range streams {
			copy(hist[b*H:(b+1)*H], s.resTail[i][u])
		}
		fused, err := m.resUnitB.ResUnit(x, hist, rows, len(streams), r.snake1, r.conv1, r.snake2, r.conv2)
		if err != nil {
			return err
		}
		if fused {
			for b, s := range streams {
				copy(s.resTail[i][u], hist[b*H:(b+1)*H])
			}
			return nil
		}
	}
	t := m.scratch.buf(sT1, R*ch)
	y := m.scratch.buf(sT2, R*ch)
	if err := m.causalConvSnake(y, x, rows, ch, 6*dilation(u), r.conv1, true, r.snake1, streams, func(s *Stream) []float32 { return s.resTail[i][u] }); err != nil {
		return err
	}
	if err := be.Snake(t, y, R, r.snake2); err != nil {
		return err
	}
	if m.convAdd != nil {
		return m.convAdd.ConvAdd(x, t, rows, len(streams), r.conv2)
	}
	if err := be.Conv(y, t, rows, len(streams), r.conv2); err != nil {
		return err
	}
	return addInto(m.add, x, y)
}

// transformer runs input_proj, the layers, the final norm and output_proj
// on x (R rows of latent_dim), leaving the result in the running slot.
func (m *Model) transformer(x []float32, streams []*Stream, n int) error {
	c := &m.cfg
	be := m.b
	sc := &m.scratch
	B := len(streams)
	R := B * n
	H, a, I := c.Hidden, c.Heads*c.HeadDim, c.Intermediate
	if cap(sc.kv) < R {
		sc.kv, sc.pos = make([]int32, R), make([]int32, R)
	}
	kv, pos := sc.kv[:R], sc.pos[:R]
	for b, s := range streams {
		for t := 0; t < n; t++ {
			kv[b*n+t], pos[b*n+t] = s.kv, s.pos+int32(t)
		}
	}
	h := sc.buf(sY, R*H)
	if err := m.linear(h, x, R, m.inProj); err != nil {
		return err
	}
	t := sc.buf(sT1, R*H)
	big := sc.buf(sT2, R*max(3*a, 2*I))
	att := sc.buf(sT3, R*max(a, I))
	o := sc.buf(sCat, R*H)
	for li := range m.layers {
		l := &m.layers[li]
		if err := be.RMSNorm(t, h, R, l.attnNorm, c.RMSEps); err != nil {
			return err
		}
		if err := m.linear(big[:R*3*a], t, R, l.qkv); err != nil {
			return err
		}
		if err := be.WindowAttention(att[:R*a], big[:R*3*a], R, kv, pos, li, c.Heads, c.HeadDim, c.RopeTheta); err != nil {
			return err
		}
		if err := m.linear(o, att[:R*a], R, l.o); err != nil {
			return err
		}
		if err := be.Scale(t, o, R, l.attnScale); err != nil {
			return err
		}
		if err := addInto(m.add, h, t); err != nil {
			return err
		}
		if err := be.RMSNorm(t, h, R, l.mlpNorm, c.RMSEps); err != nil {
			return err
		}
		if err := m.linear(big[:R*2*I], t, R, l.gateUp); err != nil {
			return err
		}
		if err := be.SwiGLU(att[:R*I], big[:R*2*I], R); err != nil {
			return err
		}
		if err := m.linear(o, att[:R*I], R, l.down); err != nil {
			return err
		}
		if err := be.Scale(t, o, R, l.mlpScale); err != nil {
			return err
		}
		if err := addInto(m.add, h, t); err != nil {
			return err
		}
	}
	if err := be.RMSNorm(t, h, R, m.norm, c.RMSEps); err != nil {
		return err
	}
	out := sc.buf(sX, R*c.LatentDim)
	return m.linear(out, t, R, m.outProj)
}
