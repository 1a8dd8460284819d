package simd

import (
	"fmt"
	"math"
	"slices"
)

// WindowAttention runs one layer's sliding-window attention for m rows, in
// order. Row r of qkv is [q (heads·hd) | k (heads·hd) | v (heads·hd)]; q and
// k are rotated (rotate-half RoPE, base theta) at position pos[r] with
// PyTorch's float32 arithmetic:
//
//	inv[i] = 1 / float32(theta^(float32(2i)/float32(hd)))   (i < hd/2)
//	angle  = float32(pos)·inv[i]; c, s = cos(angle), sin(angle) (rounded)
//	x'[i] = x[i]·c − x[i+hd/2]·s;  x'[i+hd/2] = x[i+hd/2]·c + x[i]·s
//
// k and v are stored in state kv[r] (layer layer), then the row attends with
// scale 1/sqrt(hd) over the state's positions pos[r]−window+1 … pos[r]
// (those ≥ 0): float32 scores, Softmax's float32 softmax, values summed in
// position order, each dot product and sum in Attention's order at the
// level (the heads run in parallel on the pool). A state's rows must come at
// consecutive positions from 0 (after NewWindowKV or ResetKV); a row out of
// order is refused before any state changes. It implements codec.Backend.
func (b *Backend) WindowAttention(out, qkv []float32, m int, kv, pos []int32, layer, heads, headDim int, theta float32) error {
	if m < 1 || m > maxRows || len(kv) != m || len(pos) != m {
		return fmt.Errorf("simd: backend: WindowAttention of %d rows with %d states, %d positions", m, len(kv), len(pos))
	}
	if heads < 1 || headDim < 2 || headDim%2 != 0 {
		return fmt.Errorf("simd: backend: WindowAttention %d heads of %d: want ≥ 1 heads of an even width", heads, headDim)
	}
	if !(theta > 1) || math.IsInf(float64(theta), 0) {
		return fmt.Errorf("simd: backend: WindowAttention rope theta %v must be > 1 and finite", theta)
	}
	qw := heads * headDim
	if len(qkv) != m*3*qw || len(out) != m*qw {
		return fmt.Errorf("simd: backend: WindowAttention of %d rows with len(qkv) %d, len(out) %d (want %d, %d)", m, len(qkv), len(out), m*3*qw, m*qw)
	}
	for r := 0; r < m; r++ {
		o, err := b.get(kv[r], kindWindowKV, "window kv")
		if err != nil {
			return fmt.Errorf("%w (row %d)", err, r)
		}
		w := o.win
		if w.heads != heads || w.headDim != headDim {
			return fmt.Errorf("simd: backend: WindowAttention row %d: state holds %d heads of %d, call says %d of %d", r, w.heads, w.headDim, heads, headDim)
		}
		if layer < 0 || layer >= w.layers {
			return fmt.Errorf("simd: backend: WindowAttention layer %d outside the state's %d layers (row %d)", layer, w.layers, r)
		}
		want := w.next[layer]
		for p := 0; p < r; p++ {
			if kv[p] == kv[r] {
				want++
			}
		}
		if pos[r] != want {
			return fmt.Errorf("simd: backend: WindowAttention row %d at position %d, its state's next position in layer %d is %d", r, pos[r], layer, want)
		}
	}
	window := b.objs[kv[0]].win.window
	for _, h := range kv {
		window = max(window, b.objs[h].win.window)
	}
	// Scratch: per head a rotated q and the scores.
	per := headDim + window
	need := heads * per
	if cap(b.attnWin) < need {
		b.attnWin = make([]float32, need)
	}
	cs, sn := b.winRope.table(pos, headDim, theta)
	lvl := Active()
	if lvl == AVX512VNNI && headDim%16 != 0 || lvl == AVX2 && headDim%8 != 0 {
		lvl = Generic
	}
	t := &b.winT
	*t = winAttnTask{b: b, lvl: lvl, out: out, qkv: qkv, kv: kv, pos: pos, layer: layer, heads: heads, headDim: headDim,
		cs: cs, sn: sn, scratch: b.attnWin[:need], scale: float32(1 / math.Sqrt(float64(headDim)))}
	if b.pool != nil && heads > 1 && m*heads*headDim*window >= winAttnSplit {
		b.pool.Run(t, heads, 1)
	} else {
		t.RunRange(0, heads)
	}
	*t = winAttnTask{}
	for r := 0; r < m; r++ {
		b.objs[kv[r]].win.next[layer] = pos[r] + 1
	}
	return nil
}

// winRopeTable holds the cos and sin of WindowAttention's last call's
// rows: the layers of a forward pass rotate the same positions, so only the
// first layer's call computes them (math.Cos and math.Sin per pair were
// serial time on the calling thread, once per layer).
type winRopeTable struct {
	pos     []int32
	headDim int
	theta   float32
	inv     []float32
	cs, sn  []float32
}

// table returns the cos and sin (len(pos) rows of headDim/2) for rows at
// positions pos, recomputing them unless the last call had the same
// positions, head width and base.
func (w *winRopeTable) table(pos []int32, headDim int, theta float32) (cs, sn []float32) {
	half := headDim / 2
	n := len(pos) * half
	if w.headDim == headDim && w.theta == theta && slices.Equal(w.pos, pos) {
		return w.cs[:n], w.sn[:n]
	}
	if cap(w.cs) < n {
		w.cs, w.sn = make([]float32, n), make([]float32, n)
	}
	if cap(w.inv) < half {
		w.inv = make([]float32, half)
	}
	w.pos = append(w.pos[:0], pos...)
	w.headDim, w.theta = headDim, theta
	inv := w.inv[:half]
	for i := range inv {
		e := float32(2*i) / float32(headDim)
		inv[i] = 1 / float32(math.Pow(float64(theta), float64(e)))
	}
	cs, sn = w.cs[:n], w.sn[:n]
	for r, p := range pos {
		for i, f := range inv {
			a := float32(float32(p) * f)
			cs[r*half+i] = float32(math.Cos(float64(a)))
			sn[r*half+i] = float32(math.Sin(float64(a)))
		}
	}
	return cs, sn
}

// winAttnSplit is the work (rows × heads × head width × window) from which
// WindowAttention splits its heads over the pool.
const winAttnSplit = 1 << 16

// winAttnTask is WindowAttention's work for a range of heads: each head is
// independent (its own slice of every row and of every state), so a worker
// takes whole heads and runs all the call's rows for them, in order.
type winAttnTask struct {
	b               *Backend
	lvl             Level
	out, qkv        []float32
	kv, pos         []int32
	layer, heads    int
	headDim         int
	cs, sn, scratch []float32 // cs, sn: per row; scratch: per head, a q and the scores
	scale           float32
}

// RunRange implements Task: heads [h0, h1) for every row.
func (t *winAttnTask) RunRange(h0, h1 int) {
	hd, qw := t.headDim, t.heads*t.headDim
	half := hd / 2
	per := len(t.scratch) / t.heads
	for h := h0; h < h1; h++ {
		sc := t.scratch[h*per : (h+1)*per]
		q, scores := sc[:hd], sc[hd:]
		for r := range t.kv {
			w := t.b.objs[t.kv[r]].win
			p := int(t.pos[r])
			cs, sn := t.cs[r*half:(r+1)*half], t.sn[r*half:(r+1)*half]
			row := t.qkv[r*3*qw : (r+1)*3*qw]
			W := w.window
			slot := p % W
			kl, vl := w.k[t.layer], w.v[t.layer]
			kd := kl[slot*qw+h*hd : slot*qw+(h+1)*hd]
			copy(q, row[h*hd:(h+1)*hd])
			copy(kd, row[qw+h*hd:qw+(h+1)*hd])
			copy(vl[slot*qw+h*hd:slot*qw+(h+1)*hd], row[2*qw+h*hd:2*qw+(h+1)*hd])
			ropeRotate(q, cs, sn)
			ropeRotate(kd, cs, sn)
			first := max(0, p-W+1)
			n := p - first + 1
			s := scores[:n]
			// The positions first…p sit in at most two runs of slots (the
			// ring wraps once).
			s0 := first % W
			n0 := min(n, W-s0)
			t.scores(s[:n0], q, kl[s0*qw+h*hd:], qw)
			if n0 < n {
				t.scores(s[n0:], q, kl[h*hd:], qw)
			}
			softmaxAt(t.lvl, s)
			o := t.out[r*qw+h*hd : r*qw+(h+1)*hd]
			clear(o)
			t.values(o, s[:n0], vl[s0*qw+h*hd:], qw)
			if n0 < n {
				t.values(o, s[n0:], vl[h*hd:], qw)
			}
		}
	}
}

// scores sets s[j] = (q · k[j·stride:]) · scale at t's level.
func (t *winAttnTask) scores(s, q, k []float32, stride int) {
	switch t.lvl {
	case AVX512VNNI:
		attnScoresAVX512(&s[0], &q[0], &k[0], len(s), stride, len(q), t.scale)
	case AVX2:
		attnScoresAVX2(&s[0], &q[0], &k[0], len(s), stride, len(q), t.scale)
	default:
		attnScoresGeneric(s, q, k, stride, t.scale)
	}
}

// values adds Σ_j s[j]·v[j·stride:] to o at t's level.
func (t *winAttnTask) values(o, s, v []float32, stride int) {
	switch t.lvl {
	case AVX512VNNI:
		attnValuesAVX512(&o[0], &s[0], &v[0], len(s), stride, len(o))
	case AVX2:
		attnValuesAVX2(&o[0], &s[0], &v[0], len(s), stride, len(o))
	default:
		attnValuesGeneric(o, s, v, stride)
	}
}

// ropeRotate applies rotate-half RoPE to one head x (cos, sin per pair),
// each product rounded to float32 as PyTorch's q·cos + rotate_half(q)·sin.
func ropeRotate(x, cs, sn []float32) {
	half := len(cs)
	for i := 0; i < half; i++ {
		x1, x2 := x[i], x[i+half]
		x[i] = float32(x1*cs[i]) - float32(x2*sn[i])
		x[i+half] = float32(x2*cs[i]) + float32(x1*sn[i])
	}
}
