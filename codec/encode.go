package codec

import (
	"math"
)

// encScratch holds the encoder's per-call state: every convolution's input
// tail between chunks and the activation buffers, which grow to the
// largest chunk seen and are reused.
type encScratch struct {
	first, last, down []float32   // tails: first conv, last conv, downsample
	pend              []float32   // SEANet rows waiting for the transformer
	res               [][]float32 // per residual unit, in graph order: conv1's tail
	strided           [][]float32 // per stride: one grouped row
	bufs              [6][]float32
	kv, pos           []int32
	ids               []int32
}

// Encoder scratch slots; a step never uses one slot for two live values.
const (
	eX   = iota // the running activation
	eY          // the next activation
	eCat        // a conv's tail + input
	eT          // a residual branch / attention output
	eBig        // qkv or the MLP's inner rows
	eQ          // RVQ: the residual pair and the scores
)

func (s *encScratch) init(c *EncoderConfig) {
	s.first = make([]float32, c.KernelSize-1)
	ch := c.NumFilters
	for si := range c.Ratios {
		r := c.Ratios[len(c.Ratios)-1-si]
		dil := 1
		for range c.ResidualLayers {
			s.res = append(s.res, make([]float32, (c.ResidualKernelSize-1)*dil*ch))
			dil *= c.DilationGrowth
		}
		s.strided = append(s.strided, make([]float32, r*ch))
		ch *= 2
	}
	s.last = make([]float32, (c.LastKernelSize-1)*ch)
	s.down = make([]float32, EncodeDownsample*c.Hidden)
}

func (s *encScratch) reset() {
	clear(s.first)
	clear(s.last)
	clear(s.down)
	for _, t := range s.res {
		clear(t)
	}
	for _, t := range s.strided {
		clear(t)
	}
}

// buf returns slot i with n elements (contents unspecified).
func (s *encScratch) buf(i, n int) []float32 {
	if cap(s.bufs[i]) < n {
		s.bufs[i] = make([]float32, n)
	}
	return s.bufs[i][:n]
}

// AppendEncode encodes a clip of 24 kHz mono samples (pcm, at least one,
// all finite) and appends its ceil(len(pcm)/SamplesPerFrame) frames of
// codes to dst (codebook 0, the semantic one, first): the samples past the
// last whole frame are padded with zeros as the reference pads them. A warm
// encoder appending to a dst with room allocates nothing.
//
// Nearest codewords are by squared euclidean distance, computed as
// |e|² − 2·r·e (the |r|² term is common to a row); ties go to the lowest
// index.
func (e *Encoder) AppendEncode(dst [][Codebooks]int32, pcm []float32) ([][Codebooks]int32, error) {
	if e.closed {
		return dst, errorf(ErrArgs, "encoder closed")
	}
	if len(pcm) == 0 {
		return dst, errorf(ErrArgs, "no samples to encode")
	}
	if len(pcm) > 1<<30 {
		return dst, errorf(ErrArgs, "%d samples is more than %d", len(pcm), 1<<30)
	}
	for i, v := range pcm {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return dst, errorf(ErrArgs, "sample %d is %v", i, v)
		}
	}
	e.sc.reset()
	if err := e.b.ResetKV(e.kv); err != nil {
		return dst, err
	}
	chunk := EncodeChunkFrames * e.spf
	pos := int32(0)
	sc := &e.sc
	sc.pend = sc.pend[:0]
	first := true
	for at := 0; at < len(pcm); at += chunk {
		end := min(at+chunk, len(pcm))
		if err := e.seanet(pcm[at:end]); err != nil {
			return dst, err
		}
		if rows := len(sc.pend) / e.cfg.Hidden; rows >= encodeFlushRows || end == len(pcm) {
			var err error
			if dst, err = e.flush(dst, rows, pos, first); err != nil {
				return dst, err
			}
			pos += int32(rows)
			first = false
			sc.pend = sc.pend[:0]
		}
	}
	return dst, nil
}

// encodeFlushRows is the number of SEANet rows (three chunks) from which
// the encoder runs them through the transformer, the downsample and the
// RVQ: more rows per call read each transformer weight fewer times.
const encodeFlushRows = 3 * EncodeChunkFrames * EncodeDownsample

// seanet runs the SEANet convolutions on a chunk of samples (a whole
// number of frames except for the clip's last chunk), continuing every
// conv's tail, and appends its rows (hidden_size wide) to the pending rows.
func (e *Encoder) seanet(pcm []float32) error {
	c := &e.cfg
	sc := &e.sc
	be := e.b
	L := len(pcm)

	// The first conv: 1 channel in, no activation before it.
	x := sc.buf(eX, L*c.NumFilters)
	if err := e.causal(x, pcm, L, 1, sc.first, 0, false, e.first, L); err != nil {
		return err
	}
	ch := c.NumFilters
	u := 0
	for si := range e.stages {
		st := &e.stages[si]
		for ri := range st.res {
			r := &st.res[ri]
			t := sc.buf(eT, L*ch/c.Compress)
			if err := e.causal(t, x, L, ch, sc.res[u], 0, true, r.conv1, L); err != nil {
				return err
			}
			u++
			if err := e.eluInto(t, t); err != nil {
				return err
			}
			y := sc.buf(eY, L*ch)
			if err := be.Conv(y, t, L, 1, r.conv2); err != nil {
				return err
			}
			if err := addInto(e.add, x, y); err != nil {
				return err
			}
		}
		// ELU, then the conv of stride r over rows grouped r at a time,
		// the last group padded with zeros.
		m := (L + st.ratio - 1) / st.ratio
		y := sc.buf(eY, m*2*ch)
		if err := e.causal(y, x, L, ch, sc.strided[si], (m*st.ratio-L)*ch, true, st.conv, m); err != nil {
			return err
		}
		L, ch = m, 2*ch
		sc.bufs[eX], sc.bufs[eY] = sc.bufs[eY], sc.bufs[eX]
		x = sc.bufs[eX][:L*ch]
	}
	H := c.Hidden
	h := sc.buf(eY, L*H)
	if err := e.causal(h, x, L, ch, sc.last, 0, true, e.last, L); err != nil {
		return err
	}
	e.stage(EncodeSEANet)
	sc.pend = append(sc.pend, h...)
	return nil
}

// flush runs the L pending SEANet rows (at transformer positions pos…)
// through the transformer, the ×2 downsample (replicate padding: the clip's
// first row twice before it, its last row after an odd count; first marks
// the clip's first rows) and the RVQ, appending their frames to dst.
func (e *Encoder) flush(dst [][Codebooks]int32, L int, pos int32, first bool) ([][Codebooks]int32, error) {
	sc := &e.sc
	H := e.cfg.Hidden
	h := sc.pend[:L*H]
	if err := e.transformer(h, L, pos); err != nil {
		return dst, err
	}
	e.stage(EncodeTransformer)
	if first {
		copy(sc.down, h[:H])
		copy(sc.down[H:], h[:H])
	}
	T := (L + 1) / 2
	cat := sc.buf(eCat, (T+1)*2*H)
	copy(cat, sc.down)
	copy(cat[2*H:], h)
	if L%2 == 1 {
		copy(cat[(2+L)*H:], h[(L-1)*H:])
	} else {
		copy(sc.down, h[(L-2)*H:])
	}
	z := sc.buf(eX, T*H)
	if err := e.b.Conv(z, cat, T, 1, e.down); err != nil {
		return dst, err
	}
	dst, err := e.quantize(dst, z, T)
	e.stage(EncodeQuantize)
	return dst, err
}

// causal runs a causal conv of m output rows: its input is the tail (the
// history kept from the previous chunk) then act(x) (n rows of width in; ELU
// when elu) then pad zeros; the tail is left holding the last history
// values of act(x).
func (e *Encoder) causal(y, x []float32, n, in int, tail []float32, pad int, elu bool, h int32, m int) error {
	hist := len(tail)
	body := n * in
	cat := e.sc.buf(eCat, hist+body+pad)
	copy(cat, tail)
	if elu {
		if err := e.eluInto(cat[hist:hist+body], x[:body]); err != nil {
			return err
		}
	} else {
		copy(cat[hist:], x[:body])
	}
	clear(cat[hist+body:])
	copy(tail, cat[body:hist+body])
	return e.b.Conv(y, cat, m, 1, h)
}

// ELUBackend is an optional Backend operation the encoder uses when its
// backend offers it (simd.Backend does, in assembly over its worker pool):
// out[i] = ELU(x[i]) with α = 1, the negative branch computed as ExpM1Neg
// does. Without it the encoder runs ExpM1Neg itself, so both paths give the
// same values bit for bit.
type ELUBackend interface {
	ELU(out, x []float32) error
}

// eluInto writes dst[i] = ELU(src[i]) (α = 1, as torch.nn.ELU) on the
// backend's ELU when it has one, else here, branch-free as simd does.
func (e *Encoder) eluInto(dst, src []float32) error {
	if e.elu != nil {
		return e.elu.ELU(dst, src)
	}
	for i, v := range src {
		e := math.Float32bits(ExpM1Neg(v))
		b := math.Float32bits(v)
		m := uint32(int32(b) >> 31) // all ones for a negative v (or −0)
		dst[i] = math.Float32frombits(b&^m | e&m)
	}
	return nil
}

// The constants of ExpM1Neg: simd's expf (Cephes) constants.
const (
	eluLo  = float32(-87)
	log2e  = float32(1.44269504088896341)
	ln2Hi  = float32(0.693359375)
	ln2Lo  = float32(-2.12194440e-4)
	expC0  = float32(1.9875691500e-4)
	expC1  = float32(1.3981999507e-3)
	expC2  = float32(8.3334519073e-3)
	expC3  = float32(4.1665795894e-2)
	expC4  = float32(1.6666665459e-1)
	expC5  = float32(5.0000001201e-1)
	expOne = float32(1)
)

// ExpM1Neg returns e^x − 1 for x = max(min(x, 0), −87) in float32 steps,
// none fused (within 2 ulps of math.Expm1):
//
//	n = roundToEven(x·log₂e); r = x − n·ln2Hi − n·ln2Lo
//	p = ((((c0·r + c1)·r + c2)·r + c3)·r + c4)·r + c5
//	q = p·r² + r                                      (e^r − 1)
//	e^x − 1 = 2ⁿ·q + (2ⁿ − 1)
//
// It is the definition simd's ELU follows at every level (a test holds the
// two equal bit for bit), so a backend without the ELU op (a WASI guest)
// gives the native bits.
func ExpM1Neg(x float32) float32 {
	x = min(x, 0)
	x = max(x, eluLo)
	n := float32(math.RoundToEven(float64(float32(x * log2e))))
	r := x - float32(n*ln2Hi)
	r -= float32(n * ln2Lo)
	p := float32(expC0*r) + expC1
	p = float32(p*r) + expC2
	p = float32(p*r) + expC3
	p = float32(p*r) + expC4
	p = float32(p*r) + expC5
	q := float32(p*float32(r*r)) + r
	s := math.Float32frombits(uint32(int32(n)+127) << 23)
	return float32(s*q) + (s - expOne)
}

// transformer runs the encoder transformer's layers on h (n rows of
// hidden_size, at positions pos…) in place: pre-LayerNorm attention and
// GELU MLP blocks, each added back through its LayerScale; no final norm.
func (e *Encoder) transformer(h []float32, n int, pos int32) error {
	c := &e.cfg
	be := e.b
	sc := &e.sc
	H, A, I := c.Hidden, c.Heads*c.HeadDim, c.Intermediate
	if cap(sc.kv) < n {
		sc.kv, sc.pos = make([]int32, n), make([]int32, n)
	}
	kv, ps := sc.kv[:n], sc.pos[:n]
	for r := range kv {
		kv[r], ps[r] = e.kv, pos+int32(r)
	}
	for li := range e.layers {
		l := &e.layers[li]
		t := sc.buf(eX, n*H)
		if err := be.LayerNorm(t, h, n, l.ln1w, l.ln1b, c.NormEps); err != nil {
			return err
		}
		big := sc.buf(eBig, n*max(3*A, I))
		if err := be.Conv(big[:n*3*A], t, n, 1, l.qkv); err != nil {
			return err
		}
		att := sc.buf(eT, n*max(A, H))
		if err := be.WindowAttention(att[:n*A], big[:n*3*A], n, kv, ps, li, c.Heads, c.HeadDim, c.RopeTheta); err != nil {
			return err
		}
		if err := be.Conv(t, att[:n*A], n, 1, l.o); err != nil {
			return err
		}
		if err := be.Scale(t, t, n, l.attnScale); err != nil {
			return err
		}
		if err := addInto(e.add, h, t); err != nil {
			return err
		}
		if err := be.LayerNorm(t, h, n, l.ln2w, l.ln2b, c.NormEps); err != nil {
			return err
		}
		f := big[:n*I]
		if err := be.Conv(f, t, n, 1, l.fc1); err != nil {
			return err
		}
		if err := be.GELU(f, f); err != nil {
			return err
		}
		o := att[:n*H]
		if err := be.Conv(o, f, n, 1, l.fc2); err != nil {
			return err
		}
		if err := be.Scale(o, o, n, l.mlpScale); err != nil {
			return err
		}
		if err := addInto(e.add, h, o); err != nil {
			return err
		}
	}
	return nil
}

// quantize appends the codes of T frames of the downsampled latent z (T
// rows of hidden_size): codebook 0 from the semantic RVQ, 1..15 from the
// acoustic RVQ, each RVQ a residual chain over its own input projection of
// z.
func (e *Encoder) quantize(dst [][Codebooks]int32, z []float32, T int) ([][Codebooks]int32, error) {
	c := &e.cfg
	be := e.b
	sc := &e.sc
	Q, N := c.CodebookDim, c.CodebookSize
	base := len(dst)
	if cap(dst)-base < T {
		dst = append(dst[:cap(dst)], make([][Codebooks]int32, base+T-cap(dst))...)
	}
	dst = dst[:base+T]
	res := sc.buf(eQ, 2*T*Q)
	for g := range e.proj {
		if err := be.Conv(res[g*T*Q:(g+1)*T*Q], z, T, 1, e.proj[g]); err != nil {
			return dst[:base], err
		}
	}
	scores := sc.buf(eBig, T*N)
	q := sc.buf(eT, T*Q)
	if cap(sc.ids) < T {
		sc.ids = make([]int32, T)
	}
	ids := sc.ids[:T]
	for k := 0; k < Codebooks; k++ {
		r := res[:T*Q]
		if k > 0 {
			r = res[T*Q:]
		}
		if err := be.Conv(scores, r, T, 1, e.score[k]); err != nil {
			return dst[:base], err
		}
		norm := e.norm[k]
		if e.near != nil {
			if err := e.near.NearestCodes(ids, scores, norm, T); err != nil {
				return dst[:base], err
			}
		} else {
			for t := 0; t < T; t++ {
				s := scores[t*N : (t+1)*N]
				best, bd := 0, float32(math.Inf(1))
				for n, v := range s {
					if d := norm[n] - 2*v; d < bd {
						best, bd = n, d
					}
				}
				ids[t] = int32(best)
			}
		}
		for t, id := range ids {
			dst[base+t][k] = id
		}
		if k == 0 || k == Codebooks-1 {
			continue // the semantic chain ends here; nothing reads the last residual
		}
		if err := be.Embed(q, ids, 1, e.table[k]); err != nil {
			return dst[:base], err
		}
		for i, v := range q {
			r[i] -= v
		}
	}
	return dst, nil
}
