package simd

import "fmt"

// SnakeConvTranspose computes ConvTranspose(y, Snake(x), m, batch, w,
// carry) (SnakeBeta snake on x's rows, then the transposed conv w of
// ConvTranspose's contract) when it can run it fused, in the bits of the
// two calls: the start of a vocoder block. It implements
// codec.SnakeConvTransposeBackend.
//
// Fused (the VDPBF16PS path, k·out a multiple of 16, in even): each thread
// takes a tile of input rows through Snake, the GEMM and the overlap-add
// of the output rows the tile starts, its products staying in its cache,
// instead of a GEMM whose output (k·out values per input row: 23.6 MB at
// 4 streams × 4 frames into the last block) goes to memory and back. The
// output rows a tile finishes also take products of the rows before it,
// which it computes again (same bits). It reports false, changing nothing,
// when it cannot fuse (another precision or level, weights too large to
// read again per tile, or too few tiles to keep the threads busy): the
// caller then makes the two calls.
func (b *Backend) SnakeConvTranspose(y, x []float32, m, batch int, snake, w int32, carry []float32) (bool, error) {
	so, err := b.get(snake, kindSnake, "SnakeConvTranspose snake")
	if err != nil {
		return false, err
	}
	c, err := b.convTCall("SnakeConvTranspose", "SnakeConvTranspose transposed conv", y, x, m, batch, w, carry)
	if err != nil {
		return false, err
	}
	in, out, k, st := c.in, c.out, c.kernel, c.stride
	tail := (k - st) * out
	if len(so.snake.a) != in {
		return false, fmt.Errorf("simd: backend: SnakeConvTranspose of a snake of %d channels into a %d×%d transposed conv", len(so.snake.a), in, out)
	}
	threads := 1
	if b.pool != nil {
		threads = b.pool.Active()
	}
	t := &b.snakeConvT
	*t = snakeConvTTask{convTGeom: convTGeom{out: out, k: k, st: st, m: m}, l: active, y: y, x: x, carry: carry,
		sn: so.snake, c: c, in: in, batch: batch, h: (k - 1) / st, T: b.tconvTileRows(k * out)}
	if !t.fusable(b) || batch*t.tilesPer() < 2*threads {
		*t = snakeConvTTask{}
		return false, nil
	}
	ko := k * out
	b.convTNext = resized(b.convTNext, batch*tail)
	t.next = b.convTNext
	n := t.T + t.h
	t.slots = b.tileSlots(n*max(in, ko), n*in, 0, (n+5)/6*6)
	b.runTiles(t, batch*t.tilesPer(), threads)
	copy(carry, t.next)
	*t = snakeConvTTask{}
	return true, nil
}

// tconvTileValues is the GEMM products of one SnakeConvTranspose tile
// (192 KB of fp32): with its input rows and the weights it stays in L2.
const tconvTileValues = 49152

// tconvMaxWeightBytes is the largest transposed conv (bf16 bytes) that
// SnakeConvTranspose fuses: each tile reads the weights again (the
// unfused GEMM reads a chunk of panels once for all rows).
const tconvMaxWeightBytes = 4 << 20

// tconvTileRows returns the input rows of a SnakeConvTranspose tile of ko
// products a row: about tconvTileValues products, or SetTileRows's.
func (b *Backend) tconvTileRows(ko int) int {
	if b.tileRows > 0 {
		return b.tileRows
	}
	return max(6, tconvTileValues/ko)
}

// snakeConvTTask is one SnakeConvTranspose call, run over tiles of T input
// rows of each segment.
type snakeConvTTask struct {
	convTGeom
	l               Level
	y, x, carry     []float32
	next            []float32 // each segment's new carry
	sn              *snakeParams
	c               *convWeights
	in, batch, h, T int // h: the input rows before a tile that reach its outputs
	slots           []tileSlot
}

// fusable reports whether the call runs fused at the active level.
func (t *snakeConvTTask) fusable(b *Backend) bool {
	return b.rowListed() && t.c.dotPath() && t.in%2 == 0 && t.k*t.out%PanelRows == 0 &&
		t.c.bf.bytes() <= tconvMaxWeightBytes
}

// tilesPer returns the tiles of one segment.
func (t *snakeConvTTask) tilesPer() int { return (t.m + t.T - 1) / t.T }

// RunRange implements Task over tiles [lo, hi), on a scratch slot no other
// thread holds.
func (t *snakeConvTTask) RunRange(lo, hi int) {
	s := claimFree(t.slots)
	defer s.release()
	for i := lo; i < hi; i++ {
		t.tile(s, i)
	}
}

// tile runs tile i: input rows [u0, u1) of its segment (its own from t0,
// and the h before) through Snake and the GEMM, then output rows
// [t0·stride, u1·stride) and, for the segment's last tile, the new carry.
func (t *snakeConvTTask) tile(s *tileSlot, i int) {
	in, out, k, st := t.in, t.out, t.k, t.st
	ko := k * out
	per := t.tilesPer()
	seg, t0 := i/per, i%per*t.T
	u1 := min(t0+t.T, t.m)
	u0 := max(0, t0-t.h)
	n := u1 - u0
	f := s.f[:n*in]
	snakeRows(t.l, f, t.x[(seg*t.m+u0)*in:(seg*t.m+u1)*in], n, t.sn.a, t.sn.inv)
	toBF16(t.l, s.xb[:n*in], f)
	tmp := s.f[:n*ko]
	yp, xp := s.list(n, tmp, ko, s.xb, in)
	dotRows(t.l, yp, xp, t.c.bf, nil, 1, 0, false)
	tail := (k - st) * out
	carry := t.carry[seg*tail : (seg+1)*tail]
	rows := t.m * st
	for r := t0 * st; r < u1*st; r++ {
		yr := t.y[(seg*rows+r)*out:][:out]
		t.accRow(yr, carry, tmp, u0, r)
		if t.c.bias != nil {
			Add(yr, t.c.bias)
		}
	}
	if u1 == t.m {
		next := t.next[seg*tail : (seg+1)*tail]
		for r := rows; r < rows+k-st; r++ {
			t.accRow(next[(r-rows)*out:][:out], carry, tmp, u0, r)
		}
	}
}
