//go:build !wasm

package sampler

import "math"

// blockKeys writes to bk[b] the key of the maximum of block b of x (the
// last block may be shorter) and returns the largest of them; nan reports a
// NaN in x. The builtin max propagates NaN, so a block holding one has a
// NaN maximum.
func blockKeys(x []float32, bk []uint32) (nan bool, top int64) {
	full := len(x) / blockLen
	var bad int64
	top = keyNegInf
	for b := range bk[:full] {
		e := (*[blockLen]float32)(x[b*blockLen : (b+1)*blockLen])
		m := max(max(e[0], e[1]), max(e[2], e[3]), max(e[4], e[5]), max(e[6], e[7]))
		s := int64(int32(math.Float32bits(m)))
		bk[b] = uint32(keyBits(s))
		top = max(top, int64(bk[b]))
		bad |= nanBit(s)
	}
	if full < len(bk) {
		m := float32(math.Inf(-1))
		for _, v := range x[full*blockLen:] {
			m = max(m, v)
		}
		s := int64(int32(math.Float32bits(m)))
		bk[full] = uint32(keyBits(s))
		top = max(top, int64(bk[full]))
		bad |= nanBit(s)
	}
	return bad&(1<<31) != 0, top
}

// nanBit has bit 31 set iff the float32 whose sign-extended bits are s is a
// NaN (its magnitude bits exceed those of +inf, so the addition carries into
// bit 31).
func nanBit(s int64) int64 { return s&0x7fffffff + 0x7fffff }

// scanBlocks writes to keys the packed keys of the values of the blocks
// sel (ascending) of the row w (IEEE bits) whose key is above c, in index
// order, and returns their count (keys holds len(w)). Natively a branch
// that few values take beats storing every key.
func scanBlocks(w []int32, sel []int32, c int64, keys []uint64) int {
	n := 0
	for _, b := range sel {
		lo := int(b) * blockLen
		for i, s := range w[lo:min(lo+blockLen, len(w))] {
			if kk := keyBits(int64(s)); kk > c {
				keys[n] = pack(kk, lo+i)
				n++
			}
		}
	}
	return n
}
