package simd

import (
	"sync/atomic"
	"unsafe"
)

// What the tiled codec ops (ResUnit, SnakeConvTranspose) share: per-thread
// scratch, claimed for a RunRange; running tiles on the pool; the row
// lists of a tile and the VDPBF16PS row kernel driven over them.

// claimed marks scratch one thread holds for the length of a RunRange (a
// tiled op's slot, a row split's partial-panel tile).
type claimed struct{ busy atomic.Bool }

// take marks it held, reporting whether it was free.
func (c *claimed) take() bool { return c.busy.CompareAndSwap(false, true) }

// release frees it.
func (c *claimed) release() { c.busy.Store(false) }

// claimFree returns an element of s that no other thread holds, taken (its
// release frees it). The pool runs at most as many RunRange calls at once
// as it has threads, and s holds one element per thread.
func claimFree[T any, P interface {
	*T
	take() bool
}](s []T) P {
	for i := range s {
		if p := P(&s[i]); p.take() {
			return p
		}
	}
	panic("omni: BUG: more ranges at once than per-thread scratch")
}

// tileSlot is one thread's scratch for the tiled codec ops: a tile's fp32
// activations, its bf16 kernel inputs and the row kernel's row lists.
type tileSlot struct {
	claimed
	f      []float32
	xb, tb []uint16
	yp, xp []uintptr
	// the int8 ResUnit: the convs' quantized inputs and row list
	xq, tq []byte
	job    q8Job
}

// tileSlots returns a slot for every thread the pool may run at once
// (SetActive may raise the count between the caller's look and the run),
// each with at least the given lengths.
func (b *Backend) tileSlots(f, xb, tb, rows int) []tileSlot {
	n := 1
	if b.pool != nil {
		n = b.pool.Threads()
	}
	if len(b.slots) < n {
		b.slots = make([]tileSlot, n)
	}
	for i := range b.slots[:n] {
		s := &b.slots[i]
		s.f, s.xb, s.tb = resized(s.f, f), resized(s.xb, xb), resized(s.tb, tb)
		s.yp, s.xp = resized(s.yp, rows), resized(s.xp, rows)
	}
	return b.slots[:n]
}

// tileSlotsQ8 is tileSlots for the int8 ResUnit: fp32 activations and
// the two convs' quantized inputs (bytes).
func (b *Backend) tileSlotsQ8(f, xq, tq int) []tileSlot {
	s := b.tileSlots(f, 0, 0, 0)
	for i := range s {
		s[i].xq, s[i].tq = resized(s[i].xq, xq), resized(s[i].tq, tq)
	}
	return s
}

// runTiles runs t over [0, n) on the pool (p.mu taken; chunks of one
// claimed dynamically) when there is one and threads > 1, else here.
func (b *Backend) runTiles(t Task, n, threads int) {
	if b.pool != nil && threads > 1 {
		b.pool.mu.Lock()
		b.pool.runDynamic(t, n, 1)
		b.pool.mu.Unlock()
		return
	}
	t.RunRange(0, n)
}

// list fills the slot's row lists for n rows (n ≥ 1) of outputs y (ldy
// apart) and bf16 inputs xb (ldx apart), padded to a multiple of 6 with
// the last row again (it writes the same values to the same place in the
// same kernel call), and returns them.
func (s *tileSlot) list(n int, y []float32, ldy int, xb []uint16, ldx int) (yp, xp []uintptr) {
	g := (n + 5) / 6 * 6
	yp, xp = s.yp[:g], s.xp[:g]
	for r := range g {
		rr := min(r, n-1)
		yp[r] = uintptr(unsafe.Pointer(&y[rr*ldy]))
		xp[r] = uintptr(unsafe.Pointer(&xb[rr*ldx]))
	}
	return yp, xp
}

// dotRows runs the VDPBF16PS row kernel of weights p (bias added when not
// nil) over the listed rows (a multiple of 6), reading each row's K in taps
// of K/taps inputs skip inputs apart, adding to the outputs when add: a
// chunk of panels through every row group at a time, as a conv's own row
// list does.
func dotRows(l Level, yp, xp []uintptr, p *bf16Panels, bias []float32, taps, skip int, add bool) {
	kp := p.kp
	tk := kp / taps
	var bp unsafe.Pointer
	if bias != nil {
		bp = unsafe.Pointer(&bias[0])
	}
	ad := 0
	if add {
		ad = 1
	}
	panels := p.dims.rows / PanelRows
	chunk := rowChunk(l, p.dims.cols)
	pb := PanelRows * 2 * kp
	_ = p.dot[panels*pb-1]
	for pc := 0; pc < panels; pc += chunk {
		np := min(chunk, panels-pc)
		w := unsafe.Pointer(&p.dot[pc*pb])
		for g := 0; g < len(yp); g += 6 {
			gemmBF16Dot6RowsAVX512(&yp[g], &xp[g], w, kp, np, 4*pc*PanelRows, kp, 0, 0, bp, ad, tk, 4*(skip/2))
		}
	}
}
