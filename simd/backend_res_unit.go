package simd

import "fmt"

// ResUnit runs a vocoder residual unit on batch segments of m rows of ch
// channels in place, when it can run it fused (see below):
//
//	cat = hist ‖ Snake₁(x)   (per segment: H history rows, then m rows)
//	x  += Conv₂(Snake₂(Conv₁(cat)))
//	hist = the last H rows of cat
//
// with H = (kernel₁−1)·dilation₁ and Conv₂ a 1-tap conv, in the bits of the
// calls it replaces (Snake into the conv's input, Conv, Snake, ConvAdd).
// It implements codec.ResUnitBackend.
//
// Fused (the VDPBF16PS path, both convs bf16, channels a multiple of 16;
// or both convs int8 on the AVX-512 VNNI kernel, each tile's rows
// quantized where the bf16 path rounds them):
// the rows are cut into time tiles and each thread takes a tile through all
// four steps while its activations stay in its cache, instead of four passes
// over the whole batch (each an 11.8 MB write and read at 4 streams × 4
// frames of the last block) with a barrier between them. A tile's first
// conv reads H rows before it, which the tile before it rewrites: a first
// pass over the pool saves each tile's H rows of Snake₁, rounded to bf16
// or quantized (and each segment's new history) before any tile runs. Every output sums
// its products in the order the unfused kernels do, so the bits are theirs.
//
// It reports false, changing nothing, when it does not fuse (another
// precision or level, a first conv of more than resMaxWeightBytes, or too
// few tiles to keep the threads busy): the caller then makes the four
// calls.
func (b *Backend) ResUnit(x, hist []float32, m, batch int, snake1, conv1, snake2, conv2 int32) (bool, error) {
	u, err := b.resUnitArgs(x, hist, m, batch, snake1, conv1, snake2, conv2)
	if err != nil {
		return false, err
	}
	threads := 1
	if b.pool != nil {
		threads = b.pool.Active()
	}
	if !u.fusable(b) || batch*u.tilesPer() < 2*threads {
		*u = resUnitTask{}
		return false, nil
	}
	b.runResUnit(u, threads)
	return true, nil
}

// resUnitArgs checks a ResUnit call and returns its task, not yet run.
func (b *Backend) resUnitArgs(x, hist []float32, m, batch int, snake1, conv1, snake2, conv2 int32) (*resUnitTask, error) {
	var o [4]*object
	for i, h := range [4]int32{snake1, conv1, snake2, conv2} {
		kind, what := kindSnake, "ResUnit snake"
		if i%2 == 1 {
			kind, what = kindConv, "ResUnit conv"
		}
		var err error
		if o[i], err = b.get(h, kind, what); err != nil {
			return nil, err
		}
	}
	if err := checkRowsBatch("ResUnit", m, batch); err != nil {
		return nil, err
	}
	s1, c1, s2, c2 := o[0].snake, o[1].conv, o[2].snake, o[3].conv
	ch := len(s1.a)
	if len(s2.a) != ch || c1.in != ch || c1.out != ch || c2.in != ch || c2.out != ch || c2.kernel != 1 {
		return nil, fmt.Errorf("simd: backend: ResUnit of snakes of %d and %d channels, a %d→%d conv of kernel %d and a %d→%d conv of kernel %d: want %d channels throughout and a second conv of kernel 1",
			ch, len(s2.a), c1.in, c1.out, c1.kernel, c2.in, c2.out, c2.kernel, ch)
	}
	H := (c1.kernel - 1) * c1.dilation
	if len(x) != batch*m*ch || len(hist) != batch*H*ch {
		return nil, fmt.Errorf("simd: backend: ResUnit of %d rows × %d segments of %d channels with len(x) %d, len(hist) %d (want %d, %d)",
			m, batch, ch, len(x), len(hist), batch*m*ch, batch*H*ch)
	}
	t := &b.resT
	*t = resUnitTask{l: active, x: x, hist: hist, m: m, batch: batch, ch: ch, H: H,
		s1: s1, c1: c1, s2: s2, c2: c2, T: resTileRows(ch, b.tileRows)}
	return t, nil
}

// SetTileRows makes the tiled codec ops (ResUnit, SnakeConvTranspose) cut
// their rows into tiles of rows rows; rows ≤ 0 restores their defaults (by
// the tile's bytes). Tests use small tiles to put tile edges everywhere;
// the bits do not depend on it.
func (b *Backend) SetTileRows(rows int) { b.tileRows = max(rows, 0) }

// resTileValues is the values of a tile's activation (96 KB of fp32): with
// its history rows, its bf16 copies and the weights it stays in L2.
const resTileValues = 24576

// resTileRows returns the rows of a ResUnit tile of ch channels: about
// resTileValues values, a multiple of the kernel's 6 rows; rows > 0 sets it
// (tests: many tiles of few rows).
func resTileRows(ch, rows int) int {
	if rows > 0 {
		return rows
	}
	return max(6, resTileValues/ch/6*6)
}

// resUnitTask is one ResUnit call: its arguments, then the pool's two
// passes over it (halos: each tile's history rows and each segment's new
// history; tiles: the unit on each tile).
type resUnitTask struct {
	l               Level
	x, hist         []float32
	m, batch, ch, H int
	T               int // rows per tile
	s1, s2          *snakeParams
	c1, c2          *convWeights

	halos   bool      // the pass running: halos, else tiles
	halo    []uint16  // each tile's H rows of cat, rounded to bf16
	halo8   []byte    // int8: each tile's H rows of cat, quantized
	newHist []float32 // each segment's last H rows of cat
	// per-thread scratch, claimed by RunRange: f holds Snake₁ of the
	// tile's rows, then Conv₁'s outputs; xb Conv₁'s input (history then
	// rows) and tb Conv₂'s, in bf16
	slots []tileSlot
}

// fusable reports whether the unit runs fused at the active level.
func (u *resUnitTask) fusable(b *Backend) bool {
	if u.int8() {
		return q8ConvKernel(u.l, u.c1.q8c) && q8ConvKernel(u.l, u.c2.q8c) && u.c1.q8c.bytes() <= resMaxWeightBytes
	}
	return b.rowListed() && u.c1.dotPath() && u.c2.dotPath() && u.ch%PanelRows == 0 &&
		u.c1.bf.bytes() <= resMaxWeightBytes
}

// int8 reports whether both convs are int8 (the tiles quantize their
// inputs instead of rounding them to bf16).
func (u *resUnitTask) int8() bool { return u.c1.q8c != nil && u.c2.q8c != nil }

// resMaxWeightBytes is the largest first conv (its packed bytes) ResUnit
// fuses: each tile reads the convs' weights again, which the unfused conv
// reads once per chunk of panels for all rows. Measured on the real codec
// (bench codec, 4 streams × 4 frames, alternated): in bf16 the 96-, 192-
// and 384-channel blocks gain (28 against 38, 31 against 34, 30.5 against
// 31 ms a step), the 768-channel block (8.3 MB of weights) loses; in int8
// that block (4.17 MB) fused gains a little over a bound of half (9.12–9.39
// against 9.63–9.64 ms a stream-frame for bf16+res=int8).
const resMaxWeightBytes = 4 << 20

// tilesPer returns the tiles of one segment.
func (u *resUnitTask) tilesPer() int { return (u.m + u.T - 1) / u.T }

// runResUnit runs a checked, fusable unit on threads threads.
func (b *Backend) runResUnit(u *resUnitTask, threads int) {
	ch, H, T := u.ch, u.H, u.T
	tiles := u.batch * u.tilesPer()
	b.resHist = resized(b.resHist, u.batch*H*ch)
	u.newHist = b.resHist
	if u.int8() {
		S := q8RowStride(ch)
		b.resHalo8 = resized(b.resHalo8, tiles*H*S)
		u.halo8 = b.resHalo8
		u.slots = b.tileSlotsQ8(max(T, H)*ch, (H+T)*S, T*S)
	} else {
		b.resHalo = resized(b.resHalo, tiles*H*ch)
		u.halo = b.resHalo
		rowsMax := (T + 5) / 6 * 6
		u.slots = b.tileSlots(max(T, H)*ch, (H+T)*ch, T*ch, rowsMax)
	}
	u.halos = true
	b.runTiles(u, tiles+u.batch, threads)
	u.halos = false
	b.runTiles(u, tiles, threads)
	copy(u.hist, u.newHist)
	*u = resUnitTask{}
}

// RunRange implements Task: halos or tiles [lo, hi), on a scratch slot no
// other thread holds.
func (u *resUnitTask) RunRange(lo, hi int) {
	s := claimFree(u.slots)
	defer s.release()
	for i := lo; i < hi; i++ {
		if u.halos {
			u.haloUnit(s, i)
		} else {
			u.tile(s, i)
		}
	}
}

// catRows writes rows [r0, r1) of segment seg's cat (hist ‖ Snake₁(x)) to
// dst (fp32).
func (u *resUnitTask) catRows(dst []float32, seg, r0, r1 int) {
	ch, H := u.ch, u.H
	hist := u.hist[seg*H*ch : (seg+1)*H*ch]
	x := u.x[seg*u.m*ch : (seg+1)*u.m*ch]
	for r := r0; r < min(r1, H); r++ {
		copy(dst[(r-r0)*ch:(r-r0+1)*ch], hist[r*ch:(r+1)*ch])
	}
	if a := max(r0, H); a < r1 {
		snakeRows(u.l, dst[(a-r0)*ch:(r1-r0)*ch], x[(a-H)*ch:(r1-H)*ch], r1-a, u.s1.a, u.s1.inv)
	}
}

// haloUnit runs unit i of the halo pass: tile i's H rows of cat before its
// own (rounded to bf16, or quantized), or, past the tiles, segment i−tiles's new history.
func (u *resUnitTask) haloUnit(s *tileSlot, i int) {
	ch, H := u.ch, u.H
	per := u.tilesPer()
	if tiles := u.batch * per; i >= tiles {
		seg := i - tiles
		u.catRows(u.newHist[seg*H*ch:(seg+1)*H*ch], seg, u.m, u.m+H)
		return
	}
	seg, a := i/per, i%per*u.T
	f := s.f[:H*ch]
	u.catRows(f, seg, a, a+H)
	if u.int8() {
		S := q8RowStride(ch)
		quantizeRowsQ8(u.l, u.halo8[i*H*S:(i+1)*H*S], f, H, ch, ch)
		return
	}
	toBF16(u.l, u.halo[i*H*ch:(i+1)*H*ch], f)
}

// tile runs the unit on tile i: Snake₁ of its rows behind its halo, Conv₁,
// Snake₂, then Conv₂ added to its rows of x.
func (u *resUnitTask) tile(s *tileSlot, i int) {
	ch, H := u.ch, u.H
	per := u.tilesPer()
	seg, a := i/per, i%per*u.T
	n := min(u.T, u.m-a)
	if u.int8() {
		u.tileQ8(s, i, seg, a, n)
		return
	}
	copy(s.xb[:H*ch], u.halo[i*H*ch:(i+1)*H*ch])
	f := s.f[:n*ch]
	u.catRows(f, seg, H+a, H+a+n)
	toBF16(u.l, s.xb[H*ch:(H+n)*ch], f)
	// Conv₁: output row r reads its taps from rows r, r+d, … of xb.
	yp, xp := s.list(n, f, ch, s.xb, ch)
	c1 := u.c1
	dotRows(u.l, yp, xp, c1.bf, c1.bias, c1.kernel, (c1.dilation-1)*ch, false)
	snakeRows(u.l, f, f, n, u.s2.a, u.s2.inv)
	toBF16(u.l, s.tb[:n*ch], f)
	yp, xp = s.list(n, u.x[(seg*u.m+a)*ch:], ch, s.tb, ch)
	dotRows(u.l, yp, xp, u.c2.bf, u.c2.bias, 1, 0, true)
}

// tileQ8 is tile for int8 convs: the rows quantized (behind the halo's
// quantized rows) where the bf16 path rounds them, the convs on the int8
// row kernel, the second adding to x in its stores.
func (u *resUnitTask) tileQ8(s *tileSlot, i, seg, a, n int) {
	ch, H := u.ch, u.H
	S := q8RowStride(ch)
	copy(s.xq[:H*S], u.halo8[i*H*S:(i+1)*H*S])
	f := s.f[:n*ch]
	u.catRows(f, seg, H+a, H+a+n)
	quantizeRowsQ8(u.l, s.xq[H*S:(H+n)*S], f, n, ch, ch)
	j := &s.job
	j.reset(f, s.xq[:(H+n)*S], u.c1.dilation*S, u.c1.bias, false)
	j.list(n, 1, ch, n, S)
	j.run(u.l, u.c1.q8c)
	snakeRows(u.l, f, f, n, u.s2.a, u.s2.inv)
	quantizeRowsQ8(u.l, s.tq[:n*S], f, n, ch, ch)
	j.reset(u.x[(seg*u.m+a)*ch:(seg*u.m+a+n)*ch], s.tq[:n*S], S, u.c2.bias, true)
	j.list(n, 1, ch, n, S)
	j.run(u.l, u.c2.q8c)
}
