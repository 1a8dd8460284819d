package simd

import (
	"sync/atomic"
	"unsafe"
)

// tileSlot is one thread's scratch for the tiled codec ops (ResUnit,
// SnakeConvTranspose): a tile's fp32 activations, its bf16 kernel inputs
// and the row kernel's row lists. A RunRange claims one for its duration.
type tileSlot struct {
	busy   atomic.Bool
	f      []float32
	xb, tb []uint16
	yp, xp []uintptr
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

// claimSlot returns a free slot of slots and marks it busy (Store(false)
// on its busy releases it). The pool runs at most as many RunRange calls
// at once as it has threads, one slot each.
func claimSlot(slots []tileSlot) *tileSlot {
	for i := range slots {
		if slots[i].busy.CompareAndSwap(false, true) {
			return &slots[i]
		}
	}
	panic("omni: BUG: more tiled ranges at once than scratch slots")
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
