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
	*t = overlapTask{y: y, tmp: tmp, carry: carry, bias: c.bias, out: c.out, k: c.kernel, st: c.stride, m: m}
	rows := m * c.stride
	tail := (c.kernel - c.stride) * c.out
	for s := 0; s < batch; s++ {
		for r := rows; r < rows+c.kernel-c.stride; r++ {
			t.row(next[s*tail+(r-rows)*c.out:][:c.out], s, r)
		}
	}
	t.bias = c.bias
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

// overlapTask is a transposed conv's overlap-add over units of overlapRows
// output rows of one segment.
type overlapTask struct {
	y, tmp, carry, bias []float32
	out, k, st, m       int
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

// row writes accumulator row r of segment s (no bias) to dst: the carry
// row or zero, then each reaching input row's products in order.
func (t *overlapTask) row(dst []float32, s, r int) {
	tail := t.k - t.st
	if r < tail {
		copy(dst, t.carry[(s*tail+r)*t.out:][:t.out])
	} else {
		clear(dst)
	}
	ko := t.k * t.out
	for u := max(0, (r-t.k+t.st)/t.st); u <= min(t.m-1, r/t.st); u++ {
		j := r - u*t.st
		if j >= t.k {
			continue
		}
		Add(dst, t.tmp[(s*t.m+u)*ko+j*t.out:][:t.out])
	}
}
