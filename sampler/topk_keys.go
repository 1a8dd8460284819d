package sampler

import "unsafe"

// Integer keys of the top-k fast path. The fast path compares raw logits as
// integers, read as such from memory: Go's wasm backend has no float↔int
// reinterpretation (math.Float32bits is a store and a load through the
// stack), turns only integer conditionals into branch-free selects, and
// folds constant offsets into integer loads only. Only the survivors' test,
// on divided values, compares floats.
//
// The key of a float32 is its sortable bits (see sortable), computed from
// the sign-extended IEEE bits s as s ^ (s>>31 | 1<<31): monotone on non-NaN
// values, −0 below +0, in [0, 2³²); NaNs fall outside [keyNegInf,
// keyPosInf]. A packed key holds a key above a 31-bit index: packed keys
// are distinct and compare as the values do.

const (
	keyNegInf  = 0x007fffff // key of -inf
	keyNegZero = 0x7fffffff // key of −0
	keyPosInf  = 0xff800000 // key of +inf
	idxBits    = 31         // index bits of a packed key
	idxMask    = 1<<idxBits - 1
)

// bitsOf views x as its IEEE bits (same size and alignment, so the view is
// valid for as long as x): in the WASI guest an integer load instead of a
// float load, a store and a load per value.
func bitsOf(x []float32) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// keysOf views x as keys, to hold keys in a float32 scratch buffer.
func keysOf(x []float32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// keyBits is the key of the float32 whose IEEE bits, sign-extended, are s.
func keyBits(s int64) int64 { return s ^ (s>>31 | 1<<31) }

// keyOf is the key of v.
func keyOf(v float32) int64 { return int64(sortable(v)) }

// keyAtLeast is the smallest key of the values v' with v' ≥ v (v not NaN):
// keyOf(v), except that +0 ≥ −0 holds too although −0 has the smaller key.
func keyAtLeast(v float32) int64 {
	if v == 0 {
		return keyNegZero
	}
	return keyOf(v)
}

// valueOf is the float32 whose key is k.
func valueOf(k int64) float32 { return unsortable(uint32(k)) }

// pack is the packed key of key k at index i.
func pack(k int64, i int) uint64 { return uint64(k)<<idxBits | uint64(i) }

// packedKey is the key of a packed key.
func packedKey(kk uint64) int64 { return int64(kk >> idxBits) }

// packedIndex is the index of a packed key.
func packedIndex(kk uint64) int { return int(kk & idxMask) }

// above is 1 if a > c and 0 otherwise, for |a|, |c| < 2⁶² (branch-free).
func above(a, c int64) int { return int(uint64(c-a) >> 63) }
