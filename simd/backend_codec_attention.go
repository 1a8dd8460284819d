package simd

import (
	"fmt"
	"math"
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
// (those ≥ 0): float32 scores, a float32 softmax (exp rounded from
// float64), values summed in position order. A state's rows must come at
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
	half := headDim / 2
	window := b.objs[kv[0]].win.window
	for _, h := range kv {
		window = max(window, b.objs[h].win.window)
	}
	need := 2*half + 1*half + qw + window
	if cap(b.attnWin) < need {
		b.attnWin = make([]float32, need)
	}
	s := b.attnWin[:need]
	inv, cs, sn := s[:half], s[half:2*half], s[2*half:3*half]
	q, scores := s[3*half:3*half+qw], s[3*half+qw:]
	for i := range inv {
		e := float32(2*i) / float32(headDim)
		inv[i] = 1 / float32(math.Pow(float64(theta), float64(e)))
	}
	scale := float32(1 / math.Sqrt(float64(headDim)))
	for r := 0; r < m; r++ {
		w := b.objs[kv[r]].win
		p := int(pos[r])
		for i := range inv {
			a := float32(float32(p) * inv[i])
			cs[i] = float32(math.Cos(float64(a)))
			sn[i] = float32(math.Sin(float64(a)))
		}
		row := qkv[r*3*qw : (r+1)*3*qw]
		copy(q, row[:qw])
		slot := p % w.window
		kd := w.k[layer][slot*qw : (slot+1)*qw]
		vd := w.v[layer][slot*qw : (slot+1)*qw]
		copy(kd, row[qw:2*qw])
		copy(vd, row[2*qw:])
		for h := 0; h < heads; h++ {
			ropeRotate(q[h*headDim:(h+1)*headDim], cs, sn)
			ropeRotate(kd[h*headDim:(h+1)*headDim], cs, sn)
		}
		w.next[layer] = int32(p + 1)
		first := max(0, p-w.window+1)
		n := p - first + 1
		o := out[r*qw : (r+1)*qw]
		for h := 0; h < heads; h++ {
			qh := q[h*headDim : (h+1)*headDim]
			mx := float32(math.Inf(-1))
			for j := 0; j < n; j++ {
				sl := (first + j) % w.window
				kh := w.k[layer][sl*qw+h*headDim : sl*qw+(h+1)*headDim]
				var d float32
				for i, v := range qh {
					d = float32(d + float32(v*kh[i]))
				}
				d = float32(d * scale)
				scores[j] = d
				mx = max(mx, d)
			}
			var sum float32
			for j := 0; j < n; j++ {
				e := float32(math.Exp(float64(scores[j] - mx)))
				scores[j] = e
				sum += e
			}
			oh := o[h*headDim : (h+1)*headDim]
			clear(oh)
			for j := 0; j < n; j++ {
				pj := scores[j] / sum
				sl := (first + j) % w.window
				vh := w.v[layer][sl*qw+h*headDim : sl*qw+(h+1)*headDim]
				for i, v := range vh {
					oh[i] = float32(oh[i] + float32(pj*v))
				}
			}
		}
	}
	return nil
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
