//go:build wasm

package sampler

// blockKeys writes to bk[b] the key of the maximum of block b of x (the
// last block may be shorter) and returns the largest of them; nan reports a
// NaN in x. It is branch-free: each value's key is biased so that every
// NaN, of either sign, lies above every other value, and unsigned maxima
// then find both the maximum and any NaN. Four blocks per iteration (25%
// faster than one) amortize the loop's dispatch; two running maxima per
// block keep the live values few enough not to spill. The four blocks are
// written out: a per-block helper is too big to inline and, as a call or
// an inner loop, made the top-k 30% slower in the guest.
func blockKeys(x []float32, bk []uint32) (nan bool, top int64) {
	w := bitsOf(x)
	full := len(w) / blockLen
	var t, m0, m1 uint64
	b := 0
	for ; b+4 <= full; b += 4 {
		e := (*[4 * blockLen]int32)(w[b*blockLen : (b+4)*blockLen])
		d := (*[4]uint32)(bk[b : b+4])
		m0, m1 = nanLast(int64(e[0])), nanLast(int64(e[1]))
		m0, m1 = max(m0, nanLast(int64(e[2]))), max(m1, nanLast(int64(e[3])))
		m0, m1 = max(m0, nanLast(int64(e[4]))), max(m1, nanLast(int64(e[5])))
		m0, m1 = max(m0, nanLast(int64(e[6]))), max(m1, nanLast(int64(e[7])))
		m0 = max(m0, m1)
		d[0] = uint32(m0 + keyNegInf)
		t = max(t, m0)
		m0, m1 = nanLast(int64(e[8])), nanLast(int64(e[9]))
		m0, m1 = max(m0, nanLast(int64(e[10]))), max(m1, nanLast(int64(e[11])))
		m0, m1 = max(m0, nanLast(int64(e[12]))), max(m1, nanLast(int64(e[13])))
		m0, m1 = max(m0, nanLast(int64(e[14]))), max(m1, nanLast(int64(e[15])))
		m0 = max(m0, m1)
		d[1] = uint32(m0 + keyNegInf)
		t = max(t, m0)
		m0, m1 = nanLast(int64(e[16])), nanLast(int64(e[17]))
		m0, m1 = max(m0, nanLast(int64(e[18]))), max(m1, nanLast(int64(e[19])))
		m0, m1 = max(m0, nanLast(int64(e[20]))), max(m1, nanLast(int64(e[21])))
		m0, m1 = max(m0, nanLast(int64(e[22]))), max(m1, nanLast(int64(e[23])))
		m0 = max(m0, m1)
		d[2] = uint32(m0 + keyNegInf)
		t = max(t, m0)
		m0, m1 = nanLast(int64(e[24])), nanLast(int64(e[25]))
		m0, m1 = max(m0, nanLast(int64(e[26]))), max(m1, nanLast(int64(e[27])))
		m0, m1 = max(m0, nanLast(int64(e[28]))), max(m1, nanLast(int64(e[29])))
		m0, m1 = max(m0, nanLast(int64(e[30]))), max(m1, nanLast(int64(e[31])))
		m0 = max(m0, m1)
		d[3] = uint32(m0 + keyNegInf)
		t = max(t, m0)
	}
	for ; b < len(bk); b++ {
		m := uint64(0) // -inf
		for _, s := range w[b*blockLen : min((b+1)*blockLen, len(w))] {
			m = max(m, nanLast(int64(s)))
		}
		bk[b] = uint32(m + keyNegInf)
		t = max(t, m)
	}
	return t > keyPosInf-keyNegInf, int64(t + keyNegInf)
}

// nanLast is the key of the float32 whose sign-extended bits are s, less
// the key of -inf: -inf is 0, +inf is keyPosInf − keyNegInf, and NaNs (whose
// keys lie below -inf or above +inf) wrap to larger unsigned values still.
func nanLast(s int64) uint64 { return uint64(keyBits(s) - keyNegInf) }

// scanBlocks writes to keys the packed keys of the values of the blocks
// sel (ascending) of the row w (IEEE bits) whose key is above c, in index
// order, and returns their count (keys holds len(w)). It is branch-free:
// every key is stored and the count advances by 0 or 1, with the store
// index masked so that it needs no bounds check (1.4–2× faster than a
// branch or a loop over the block in the WASI guest).
func scanBlocks(w []int32, sel []int32, c int64, keys []uint64) int {
	n := 0
	for _, b := range sel {
		lo := int(b) * blockLen
		if lo+blockLen > len(w) {
			// The short last block.
			for i := lo; i < len(w); i++ {
				kk := keyBits(int64(w[i]))
				keys[n] = pack(kk, i)
				n += above(kk, c)
			}
			continue
		}
		// The candidates so far come from earlier blocks, so n ≤ lo.
		d := (*[blockLen]uint64)(keys[n : n+blockLen])
		e := (*[blockLen]int32)(w[lo : lo+blockLen])
		k0, k1 := keyBits(int64(e[0])), keyBits(int64(e[1]))
		d[0] = pack(k0, lo)
		j := above(k0, c)
		d[j] = pack(k1, lo+1)
		j += above(k1, c)
		k0, k1 = keyBits(int64(e[2])), keyBits(int64(e[3]))
		d[j&7] = pack(k0, lo+2)
		j += above(k0, c)
		d[j&7] = pack(k1, lo+3)
		j += above(k1, c)
		k0, k1 = keyBits(int64(e[4])), keyBits(int64(e[5]))
		d[j&7] = pack(k0, lo+4)
		j += above(k0, c)
		d[j&7] = pack(k1, lo+5)
		j += above(k1, c)
		k0, k1 = keyBits(int64(e[6])), keyBits(int64(e[7]))
		d[j&7] = pack(k0, lo+6)
		j += above(k0, c)
		d[j&7] = pack(k1, lo+7)
		n += j + above(k1, c)
	}
	return n
}
