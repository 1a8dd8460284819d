package simd

import (
	"fmt"
	"unsafe"
)

// GemmQ8 computes, for every quantized row i < x.M() and output row r,
//
//	y[i*w.Rows()+r] = Σ_b float32(float32(Σ_{k in block b} qx[i][k]·qw[r][k]) · xs[i][b]) · ws[r][b]
//
// single-threaded, where the block terms are added in block order into a
// float32 accumulator that starts at 0. The integer dot products are exact
// and every level performs the same float32 operations in the same order,
// so all levels agree bit for bit. Inputs are x pre-quantized (Q8Input) and
// w (Q8Matrix) with the same cols and block; len(y) must be ≥ x.M()·w.Rows().
func GemmQ8(y []float32, x *Q8Input, w *Q8Matrix) {
	GemmQ8Rows(y, x, w, 0, w.rows)
}

// GemmQ8Rows is GemmQ8 for output rows [r0, r1) only (the other entries of y
// are not touched). r0 and r1 must be multiples of PanelRows, or r1 ==
// w.Rows(); this is how work is split between threads.
func GemmQ8Rows(y []float32, x *Q8Input, w *Q8Matrix, r0, r1 int) {
	checkQ8(y, x, w, r0, r1)
	if r0 == r1 {
		return
	}
	gemmQ8Range(active, y, x, w, r0/PanelRows, r1)
}

func checkQ8(y []float32, x *Q8Input, w *Q8Matrix, r0, r1 int) {
	if x.cols != w.cols || x.block != w.block {
		panic(fmt.Sprintf("simd: GemmQ8: input cols %d block %d, matrix cols %d block %d", x.cols, x.block, w.cols, w.block))
	}
	if x.m < 1 {
		panic("simd: GemmQ8: input not quantized")
	}
	if len(y) < x.m*w.rows {
		panic(fmt.Sprintf("simd: GemmQ8(%dx%dx%d): len(y) %d < %d", x.m, w.cols, w.rows, len(y), x.m*w.rows))
	}
	checkRows("GemmQ8", w.rows, r0, r1)
}

func checkRows(name string, rows, r0, r1 int) {
	if r0 < 0 || r1 > rows || r0 > r1 || r0%PanelRows != 0 || (r1%PanelRows != 0 && r1 != rows) {
		panic(fmt.Sprintf("simd: %sRows: rows [%d, %d) of %d: bounds must be multiples of %d (or the end)", name, r0, r1, rows, PanelRows))
	}
}

// q8ChunkBytes bounds the weight bytes one kernel call streams when several
// groups of input rows reuse them (so the re-reads hit L1/L2); q8StreamBytes
// bounds a single-group call (m ≤ the group size). Both keep each assembly
// call far below 1 ms.
const (
	q8ChunkBytes  = 32 << 10
	q8StreamBytes = 512 << 10
)

// q8Group returns the size of the next group of input rows (m rows left) that
// a level's kernel handles at once.
func q8Group(l Level, m int) int {
	maxG := 8
	if l == AVX2 {
		maxG = 2
	}
	for g := maxG; g > 1; g /= 2 {
		if m >= g {
			return g
		}
	}
	return 1
}

// gemmQ8Range computes output rows [16·p0, r1) for all input rows.
func gemmQ8Range(l Level, y []float32, x *Q8Input, w *Q8Matrix, p0, r1 int) {
	m, rows := x.m, w.rows
	pFull := r1 / PanelRows // panels [p0, pFull) are complete
	chunk := q8StreamBytes / w.panelBytes
	if q8Group(l, m) < m {
		chunk = q8ChunkBytes / w.panelBytes
	}
	// At least a pair of panels, and whole pairs (the AVX-512 kernels
	// run panels four and two at a time).
	if chunk = wholeQuads(max(chunk, 2)); chunk%2 == 1 {
		chunk--
	}
	for pc := p0; pc < pFull; pc += chunk {
		n := min(chunk, pFull-pc)
		for i0 := 0; i0 < m; {
			g := q8Group(l, m-i0)
			// The first pass over a chunk reads it from DRAM, the later
			// ones from cache; the second (8 rows) fetches the next chunk
			// meanwhile, so that the memory works while the core computes.
			pf := q8PrefetchAhead
			if i0 == 8 && pc+n < pFull {
				pf = n * w.panelBytes
			}
			q8Kernel(l, g, y[i0*rows+pc*PanelRows:], rows, x, i0, w.data[pc*w.panelBytes:], w, n, pf)
			i0 += g
		}
	}
	if pFull*PanelRows < r1 { // the last, partial panel goes through a scratch tile
		var tile [8 * PanelRows]float32
		nr := r1 - pFull*PanelRows
		for i0 := 0; i0 < m; {
			g := q8Group(l, m-i0)
			q8Kernel(l, g, tile[:], PanelRows, x, i0, w.data[pFull*w.panelBytes:], w, 1, q8PrefetchAhead)
			for j := 0; j < g; j++ {
				copy(y[(i0+j)*rows+pFull*PanelRows:][:nr], tile[j*PanelRows:][:nr])
			}
			i0 += g
		}
	}
}

// q8PrefetchAhead is how far ahead of its own weight stream (bytes) the
// 8-row kernel prefetches when it is not fetching the next chunk.
const q8PrefetchAhead = 4096

// wholeQuads rounds a run of more than four panels down to whole quads (the
// one- and two-row AVX-512 kernels read four panels at a time, and a run
// that ends in a pair or a single panel leaves them to slower kernels).
func wholeQuads(panels int) int {
	if panels > 4 {
		return panels &^ 3
	}
	return panels
}

// q8PairsAVX512 runs a group of g ≤ 4 input rows against np panels at the
// AVX-512 VNNI level: for one or two rows quads of panels first (four
// weight streams in flight), then pairs of panels in one pass (each activation
// broadcast feeds both, and two weight streams are in flight), an odd last
// panel alone. Every output gets the same operations as in the one-panel
// kernel, so the bits do not depend on the pairing.
func q8PairsAVX512(g int, yp unsafe.Pointer, ldyB int, xp unsafe.Pointer, ldx int, sp unsafe.Pointer, ldsc int, wp unsafe.Pointer, nb, nk, np, panelBytes int) {
	if quads := np / 4; g < 4 && quads > 0 {
		// One or two rows read four weight streams at once (a core
		// streams DRAM faster with four than with two; four rows against
		// four panels run out of registers and measured slower with their
		// accumulators in memory); the panels left go on below.
		switch {
		case g == 2 && quadPrefetch:
			gemmQ8x2P4AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, quads)
		case g == 2:
			gemmQ8x2P4NPAVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, quads)
		case quadPrefetch:
			gemmQ8x1P4AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, quads)
		default:
			gemmQ8x1P4NPAVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, quads)
		}
		done := 4 * quads
		if np == done {
			return // (no pointer past the end: checkptr refuses one)
		}
		yp, wp, np = unsafe.Add(yp, done*PanelRows*4), unsafe.Add(wp, done*panelBytes), np-done
	}
	if pairs := np / 2; pairs > 0 {
		switch g {
		case 4:
			gemmQ8x4P2AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, pairs)
		case 2:
			gemmQ8x2P2AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, pairs)
		default:
			gemmQ8x1P2AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, nb, nk, pairs)
		}
	}
	if np%2 == 0 {
		return
	}
	last := np - 1
	yl, wl := unsafe.Add(yp, last*PanelRows*4), unsafe.Add(wp, last*panelBytes)
	switch g {
	case 4:
		gemmQ8x4AVX512VNNI(yl, ldyB, xp, ldx, sp, ldsc, wl, nb, nk, 1)
	case 2:
		gemmQ8x2AVX512VNNI(yl, ldyB, xp, ldx, sp, ldsc, wl, nb, nk, 1)
	default:
		gemmQ8x1AVX512VNNI(yl, ldyB, xp, ldx, sp, ldsc, wl, nb, nk, 1)
	}
}

// q8Kernel runs the level's kernel for input rows [i0, i0+g) over np panels
// starting at wd, writing 16 outputs per panel per row into y (row stride ldy
// floats). pf is how far ahead (bytes) the 8-row kernel prefetches.
func q8Kernel(l Level, g int, y []float32, ldy int, x *Q8Input, i0 int, wd []byte, w *Q8Matrix, np, pf int) {
	m := x.m
	qx := x.qx[4*i0:]
	sc := x.sc[i0:]
	if l == Generic || !haveAsm {
		gemmQ8Generic(y, ldy, qx, 4*m, sc, 2*m, g, wd, w.nb, w.block, np)
		return
	}
	_ = y[(g-1)*ldy+np*PanelRows-1]
	_ = wd[np*w.panelBytes-1]
	yp, xp, sp, wp := unsafe.Pointer(&y[0]), unsafe.Pointer(&qx[0]), unsafe.Pointer(&sc[0]), unsafe.Pointer(&wd[0])
	ldyB, ldx, ldsc, nk := 4*ldy, 4*m, 8*m, w.block/32
	switch l {
	case AVX512VNNI:
		if g == 8 {
			gemmQ8x8AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, nk, np, pf)
		} else {
			q8PairsAVX512(g, yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, nk, np, w.panelBytes)
		}
	case AVX2:
		switch g {
		case 2:
			gemmQ8x2AVX2(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, nk, np)
		default:
			gemmQ8x1AVX2(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, nk, np)
		}
	default:
		panic("omni: BUG: gemmQ8 at level " + l.String())
	}
}
