package simd

import (
	"fmt"
	"unsafe"
)

// GemmQ4 computes, for every quantized row i < x.M() and output row r,
//
//	y[i*w.Rows()+r] = Σ_b float32(float32(Σ_{k in block b} qx[i][k]·level[r][k]) · xs[i][b]) · ws[r][b]
//
// single-threaded, the block terms added in block order into a float32
// accumulator that starts at 0, exactly as GemmQ8 does with the codebook
// level of each 4-bit code in place of qw; every level of kernel gives the
// same bits. x must be quantized in blocks of Q4Block with w's cols; len(y)
// must be ≥ x.M()·w.Rows().
func GemmQ4(y []float32, x *Q8Input, w *Q4Matrix) {
	GemmQ4Rows(y, x, w, 0, w.rows)
}

// GemmQ4Rows is GemmQ4 for output rows [r0, r1) only (the other entries of
// y are not touched). r0 and r1 must be multiples of PanelRows, or r1 ==
// w.Rows().
func GemmQ4Rows(y []float32, x *Q8Input, w *Q4Matrix, r0, r1 int) {
	checkQ4(y, x, w, r0, r1)
	if r0 == r1 {
		return
	}
	gemmQ4Range(active, y, x, w, r0/PanelRows, r1)
}

func checkQ4(y []float32, x *Q8Input, w *Q4Matrix, r0, r1 int) {
	if x.cols != w.cols || x.block != Q4Block {
		panic(fmt.Sprintf("simd: GemmQ4: input cols %d block %d, matrix cols %d block %d", x.cols, x.block, w.cols, Q4Block))
	}
	if x.m < 1 {
		panic("simd: GemmQ4: input not quantized")
	}
	if len(y) < x.m*w.rows {
		panic(fmt.Sprintf("simd: GemmQ4(%dx%dx%d): len(y) %d < %d", x.m, w.cols, w.rows, len(y), x.m*w.rows))
	}
	checkRows("GemmQ4", w.rows, r0, r1)
}

// q4Group returns the size of the next group of input rows (m left) that
// a level's kernel handles at once.
func q4Group(l Level, m int) int {
	if l != AVX512VNNI {
		return 1
	}
	for g := 8; g > 1; g /= 2 {
		if m >= g {
			return g
		}
	}
	return 1
}

// gemmQ4Range computes output rows [16·p0, r1) for all input rows, in
// chunks of panels that stay in L2 while every group of input rows reads
// them (a quad at least: 108 KiB at 3072 inputs).
func gemmQ4Range(l Level, y []float32, x *Q8Input, w *Q4Matrix, p0, r1 int) {
	m, rows := x.m, w.rows
	pFull := r1 / PanelRows
	chunk := q8StreamBytes / w.panelBytes
	if q4Group(l, m) < m {
		chunk = q8ChunkBytes / w.panelBytes
	}
	// At least a quad of panels, and whole quads (the 1- and 2-row
	// kernels read four panels at a time, the 4-row one two).
	chunk = wholeQuads(max(chunk, 4))
	for pc := p0; pc < pFull; pc += chunk {
		n := min(chunk, pFull-pc)
		for i0 := 0; i0 < m; {
			g := q4Group(l, m-i0)
			q4Kernel(l, g, y[i0*rows+pc*PanelRows:], rows, x, i0, w.data[pc*w.panelBytes:], w, n)
			i0 += g
		}
	}
	if pFull*PanelRows < r1 { // the last, partial panel goes through a scratch tile
		var tile [8 * PanelRows]float32
		nr := r1 - pFull*PanelRows
		for i0 := 0; i0 < m; {
			g := q4Group(l, m-i0)
			q4Kernel(l, g, tile[:], PanelRows, x, i0, w.data[pFull*w.panelBytes:], w, 1)
			for j := 0; j < g; j++ {
				copy(y[(i0+j)*rows+pFull*PanelRows:][:nr], tile[j*PanelRows:][:nr])
			}
			i0 += g
		}
	}
}

// q4Kernel runs the level's kernel for input rows [i0, i0+g) over np panels
// starting at wd, writing 16 outputs per panel per row into y (row stride
// ldy floats).
func q4Kernel(l Level, g int, y []float32, ldy int, x *Q8Input, i0 int, wd []byte, w *Q4Matrix, np int) {
	m := x.m
	qx := x.qx[4*i0:]
	sc := x.sc[i0:]
	if l == Generic || !haveAsm {
		gemmQ4Generic(y, ldy, qx, 4*m, sc, 2*m, g, wd, w.nb, np, &w.tab)
		return
	}
	_ = y[(g-1)*ldy+np*PanelRows-1]
	_ = wd[np*w.panelBytes-1]
	yp, xp, sp, wp := unsafe.Pointer(&y[0]), unsafe.Pointer(&qx[0]), unsafe.Pointer(&sc[0]), unsafe.Pointer(&wd[0])
	ldyB, ldx, ldsc := 4*ldy, 4*m, 8*m
	switch l {
	case AVX512VNNI:
		tab := unsafe.Pointer(&w.tab[0])
		switch g {
		case 8:
			gemmQ4x8AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, np, tab)
		case 4:
			q4PairsX4AVX512(yp, ldyB, xp, ldx, sp, ldsc, wp, w, np, tab)
		case 2:
			q4QuadsAVX512(2, yp, ldyB, xp, ldx, sp, ldsc, wp, w, np, tab)
		default:
			q4QuadsAVX512(1, yp, ldyB, xp, ldx, sp, ldsc, wp, w, np, tab)
		}
	case AVX2:
		gemmQ4x1AVX2(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, np, unsafe.Pointer(&w.tab[16]))
	default:
		panic("omni: BUG: gemmQ4 at level " + l.String())
	}
}

// q4QuadsAVX512 runs a group of g (1 or 2) input rows against np panels at
// the AVX-512 VNNI level: whole quads of panels first (four weight streams
// in flight; the prefetching variant or not, as quadPrefetch says), then
// the panels left one at a time. Every output gets the operations of the
// one-panel kernel, so the bits do not depend on the grouping. (A switch,
// not kernels passed as func values: the pointers would escape through an
// indirect call, and the caller's scratch tile with them.)
func q4QuadsAVX512(g int, yp unsafe.Pointer, ldyB int, xp unsafe.Pointer, ldx int, sp unsafe.Pointer, ldsc int, wp unsafe.Pointer, w *Q4Matrix, np int, tab unsafe.Pointer) {
	if quads := np / 4; quads > 0 {
		switch {
		case g == 2 && quadPrefetch:
			gemmQ4x2P4AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, quads, tab)
		case g == 2:
			gemmQ4x2P4NPAVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, quads, tab)
		case quadPrefetch:
			gemmQ4x1P4AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, quads, tab)
		default:
			gemmQ4x1P4NPAVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, quads, tab)
		}
		done := 4 * quads
		if np == done {
			return // (no pointer past the end: checkptr refuses one)
		}
		yp, wp, np = unsafe.Add(yp, done*PanelRows*4), unsafe.Add(wp, done*w.panelBytes), np-done
	}
	if g == 2 {
		gemmQ4x2AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, np, tab)
	} else {
		gemmQ4x1AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, np, tab)
	}
}

// q4PairsX4AVX512 runs four input rows against np panels at the AVX-512
// VNNI level: pairs of panels first (two weight streams in flight; four
// rows against four panels would run out of registers), an odd last panel
// alone. The bits are those of the one-panel kernel.
func q4PairsX4AVX512(yp unsafe.Pointer, ldyB int, xp unsafe.Pointer, ldx int, sp unsafe.Pointer, ldsc int, wp unsafe.Pointer, w *Q4Matrix, np int, tab unsafe.Pointer) {
	if pairs := np / 2; pairs > 0 {
		gemmQ4x4P2AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, pairs, tab)
		if np%2 == 0 {
			return // (no pointer past the end: checkptr refuses one)
		}
		yp, wp = unsafe.Add(yp, (np-1)*PanelRows*4), unsafe.Add(wp, (np-1)*w.panelBytes)
	}
	gemmQ4x4AVX512VNNI(yp, ldyB, xp, ldx, sp, ldsc, wp, w.nb, 1, tab)
}
