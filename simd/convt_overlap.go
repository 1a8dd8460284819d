package simd

// overlapAdd finishes a transposed conv from its GEMM (tmp[t][j·out+o],
// the products of input row t for tap j, all segments): output row r of a
// segment is its carry row (r < kernel−stride) or zero, plus the products
// of every input row t that reaches it (t·stride ≤ r < t·stride + kernel)
// in increasing t, then the bias; the rows past m·stride are the new carry.
// The rows are independent, so they are split over the pool; the new carry
// goes through next (batch×tail values) first, since the rows read the old.
func (b *Backend) overlapAdd(y, tmp, next, carry []float32, c *convWeights, m, batch int) {
	t := &b.overlapT
	*t = overlapTask{convTGeom: convTGeom{out: c.out, k: c.kernel, st: c.stride, m: m}, y: y, tmp: tmp, carry: carry, bias: c.bias}
	rows := m * c.stride
	tail := (c.kernel - c.stride) * c.out
	for s := 0; s < batch; s++ {
		for r := rows; r < rows+c.kernel-c.stride; r++ {
			t.row(next[s*tail+(r-rows)*c.out:][:c.out], s, r)
		}
	}
	units := batch * ((rows + overlapRows - 1) / overlapRows)
	if b.pool != nil && batch*rows*c.out >= snakeSplit && units > 1 {
		b.pool.Run(t, units, 1)
	} else {
		t.RunRange(0, units)
	}
	copy(carry, next)
	*t = overlapTask{}
}

// overlapRows is the output rows of one unit of the overlap-add's split.
const overlapRows = 64

// convTGeom is a transposed conv's shape as the overlap-add sees it, for
// segments of m input rows.
type convTGeom struct{ out, k, st, m int }

// accRow writes accumulator row r of one segment (no bias) to dst: its
// carry row (carry: the segment's) when r < kernel−stride, else zero, then
// the products of every input row u that reaches it (u·stride ≤ r <
// u·stride + kernel) in increasing u, read from tmp, whose row 0 holds
// input row u0's products (k·out values a row).
func (g convTGeom) accRow(dst, carry, tmp []float32, u0, r int) {
	if r < g.k-g.st {
		copy(dst, carry[r*g.out:][:g.out])
	} else {
		clear(dst)
	}
	ko := g.k * g.out
	for u := max(0, (r-g.k+g.st)/g.st); u <= min(g.m-1, r/g.st); u++ {
		j := r - u*g.st
		if j >= g.k {
			continue
		}
		Add(dst, tmp[(u-u0)*ko+j*g.out:][:g.out])
	}
}

// overlapTask is a transposed conv's overlap-add over units of overlapRows
// output rows of one segment.
type overlapTask struct {
	convTGeom
	y, tmp, carry, bias []float32
}

// RunRange implements Task: output rows of units [lo, hi), bias added.
func (t *overlapTask) RunRange(lo, hi int) {
	rows := t.m * t.st
	per := (rows + overlapRows - 1) / overlapRows
	for u := lo; u < hi; u++ {
		s, r0 := u/per, u%per*overlapRows
		for r := r0; r < min(r0+overlapRows, rows); r++ {
			yr := t.y[(s*rows+r)*t.out:][:t.out]
			t.row(yr, s, r)
			if t.bias != nil {
				Add(yr, t.bias)
			}
		}
	}
}

// row writes accumulator row r of segment s (no bias) to dst.
func (t *overlapTask) row(dst []float32, s, r int) {
	tail := (t.k - t.st) * t.out
	t.accRow(dst, t.carry[s*tail:(s+1)*tail], t.tmp[s*t.m*t.k*t.out:], 0, r)
}
