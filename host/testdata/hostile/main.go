//go:build wasip1

// Command hostile is a test guest for package host: it calls every host
// function of module omni with wild pointers, huge and negative lengths,
// stale, foreign and wrongly-kinded handles. Each case returns the status
// the host gave; the test checks it and that the host's memory is intact.
package main

import "unsafe"

func main() {}

//go:wasmimport omni abi_version
func version(out uint32) int32

//go:wasmimport omni new_matrix
func newMatrix(rows, cols int32, data uint32, dataLen int32, bias uint32, biasLen int32, prec uint32, precLen int32, out uint32) int32

//go:wasmimport omni new_vector
func newVector(data uint32, n int32, out uint32) int32

//go:wasmimport omni new_table
func newTable(rows, cols int32, data uint32, n int32, out uint32) int32

//go:wasmimport omni write_table
func writeTable(table, row0 int32, data uint32, n int32) int32

//go:wasmimport omni new_rope
func newRope(headDim, maxPos int32, theta float32, out uint32) int32

//go:wasmimport omni new_kv_cache
func newKV(layers, kvHeads, headDim, maxPos int32, out uint32) int32

//go:wasmimport omni free
func free(h int32) int32

//go:wasmimport omni bytes
func bytes(h int32, out uint32) int32

//go:wasmimport omni matmul
func matmul(y uint32, yLen int32, x uint32, xLen int32, m, w int32) int32

//go:wasmimport omni matmul_add
func matmulAdd(y uint32, yLen int32, x uint32, xLen int32, m, w int32) int32

//go:wasmimport omni rms_norm
func rmsNorm(out uint32, outLen int32, x uint32, xLen int32, m, w int32, eps float32) int32

//go:wasmimport omni swiglu
func swiglu(out uint32, outLen int32, gu uint32, guLen int32, m int32) int32

//go:wasmimport omni embed
func embed(out uint32, outLen int32, ids uint32, idsLen int32, perRow, table int32) int32

//go:wasmimport omni attention
func attention(out uint32, outLen int32, qkv uint32, qkvLen int32, m int32, caches uint32, cachesLen int32, pos uint32, posLen int32, layer, qNorm, kNorm, rope, heads int32, eps float32) int32

//go:wasmimport omni source_read
func sourceRead(name uint32, nameLen int32, row0, rows int32, out uint32, outLen int32) int32

// Host objects the test made (see setup): a 4×8 matrix, a 16×8 table, an
// 8-vector, a rope for head_dim 8, a kv cache (1 layer, 1 head, 8, 4
// positions), and a handle of another engine.
var hMat, hTab, hVec, hRope, hKV, hForeign int32

// buf is scratch guest memory the cases point into.
var buf [4096]float32
var ibuf [64]int32
var out [4]int32

func p(v *float32) uint32 { return uint32(uintptr(unsafe.Pointer(v))) }
func pi(v *int32) uint32  { return uint32(uintptr(unsafe.Pointer(v))) }

//go:wasmexport setup
func setup(mat, tab, vec, rope, kv, foreign int32) int32 {
	hMat, hTab, hVec, hRope, hKV, hForeign = mat, tab, vec, rope, kv, foreign
	return 0
}

// ownMatrix makes a 4×8 fp32 matrix of the guest's own.
func ownMatrix() int32 {
	prec := "fp32"
	if s := newMatrix(4, 8, p(&buf[0]), 32, 0, 0, uint32(uintptr(unsafe.Pointer(unsafe.StringData(prec)))), 4, pi(&out[0])); s != 0 {
		return -s
	}
	return out[0]
}

// ownKV makes a kv cache of the guest's own (1 layer, 1 head, 8, 4).
func ownKV() int32 {
	if s := newKV(1, 1, 8, 4, pi(&out[0])); s != 0 {
		return -s
	}
	return out[0]
}

const wild = 0xfffffff0

// attack runs case k and returns the host's status (or -1 for a case that
// does not exist).
//
//go:wasmexport attack
func attack(k int32) int32 {
	y, x := p(&buf[0]), p(&buf[1024])
	prec := "fp32"
	pp := uint32(uintptr(unsafe.Pointer(unsafe.StringData(prec))))
	switch k {
	case 0: // a good call, for contrast
		return matmul(y, 4, x, 8, 1, hMat)
	case 1: // output far outside memory
		return matmul(wild, 4, x, 8, 1, hMat)
	case 2: // input outside memory
		return matmul(y, 4, wild, 8, 1, hMat)
	case 3: // huge length
		return matmul(y, 0x7fffffff, x, 8, 1, hMat)
	case 4: // negative row count
		return matmul(y, 4, x, 8, -1, hMat)
	case 5: // misaligned pointer
		return matmul(y+1, 4, x, 8, 1, hMat)
	case 6: // lengths that disagree with the matrix
		return matmul(y, 5, x, 8, 1, hMat)
	case 7: // a stale handle
		h := ownMatrix()
		free(h)
		return matmul(y, 4, x, 8, 1, h)
	case 8: // another engine's handle
		return matmul(y, 4, x, 8, 1, hForeign)
	case 9: // a vector where a matrix is needed
		return matmul(y, 4, x, 8, 1, hVec)
	case 10: // a made-up handle
		return matmul(y, 4, x, 8, 1, 0x00ffffff)
	case 11: // zero and negative handles
		if s := matmul(y, 4, x, 8, 1, 0); s == 0 {
			return 0
		}
		return matmulAdd(y, 4, x, 8, 1, -5)
	case 12: // free a host weight
		return free(hMat)
	case 13: // overwrite a host table
		return writeTable(hTab, 0, x, 8)
	case 14: // ids outside the table
		ibuf[0] = 1 << 30
		return embed(y, 8, pi(&ibuf[0]), 1, 1, hTab)
	case 15: // negative ids
		ibuf[0] = -1
		return embed(y, 8, pi(&ibuf[0]), 1, 1, hTab)
	case 16: // negative per_row
		return embed(y, 8, pi(&ibuf[0]), 1, -1, hTab)
	case 17: // attention at a position past the cache
		kv := ownKV()
		defer free(kv)
		ibuf[0], ibuf[1] = kv, 4
		return attention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, hVec, hVec, hRope, 1, 1e-6)
	case 18: // attention with a matrix posing as a cache
		ibuf[0], ibuf[1] = hMat, 0
		return attention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, hVec, hVec, hRope, 1, 1e-6)
	case 19: // attention at a layer the cache lacks
		kv := ownKV()
		defer free(kv)
		ibuf[0], ibuf[1] = kv, 0
		return attention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 7, hVec, hVec, hRope, 1, 1e-6)
	case 20: // attention with a huge head count
		kv := ownKV()
		defer free(kv)
		ibuf[0], ibuf[1] = kv, 0
		return attention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, hVec, hVec, hRope, 1<<20, 1e-6)
	case 21: // attention with caches outside memory
		return attention(y, 8, x, 24, 1, wild, 1, pi(&ibuf[1]), 1, 0, hVec, hVec, hRope, 1, 1e-6)
	case 22: // a kv cache far beyond any budget
		return newKV(1<<24, 1<<24, 1<<24, 1<<24, pi(&out[0]))
	case 23: // upload from outside memory
		return newMatrix(4, 8, wild, 32, 0, 0, pp, 4, pi(&out[0]))
	case 24: // result slot outside memory (nothing may be made)
		return newMatrix(4, 8, p(&buf[0]), 32, 0, 0, pp, 4, wild)
	case 25: // unknown precision
		bad := "int3"
		return newMatrix(4, 8, p(&buf[0]), 32, 0, 0, uint32(uintptr(unsafe.Pointer(unsafe.StringData(bad)))), 4, pi(&out[0]))
	case 26: // NaN epsilon
		nan := float32(0)
		nan = nan / nan
		return rmsNorm(y, 8, x, 8, 1, hVec, nan)
	case 27: // read weights with no source
		name := "x"
		return sourceRead(uint32(uintptr(unsafe.Pointer(unsafe.StringData(name)))), 1, 0, 1, y, 8)
	case 28: // misaligned i64 result
		return bytes(hMat, pi(&out[0])+2)
	case 29: // swiglu with an odd split
		return swiglu(y, 3, x, 7, 1)
	case 30: // double free
		h := ownMatrix()
		free(h)
		return free(h)
	case 31: // pointer + length wrapping past 4 GiB
		return newVector(0xfffffffc, 1<<23, pi(&out[0]))
	case 32: // version into a wild slot
		return version(wild)
	case 33: // a zero-size table write at a negative row
		h := int32(0)
		if s := newTable(4, 8, 0, 0, pi(&out[0])); s != 0 {
			return -s
		}
		h = out[0]
		defer free(h)
		return writeTable(h, -1, x, 8)
	case 34: // rope with an odd head size
		return newRope(7, 4, 10000, pi(&out[0]))
	case 35: // negative lengths everywhere
		return newTable(4, 8, x, -32, pi(&out[0]))
	case 36: // attention writing into a host-owned cache
		ibuf[0], ibuf[1] = hKV, 0
		return attention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, hVec, hVec, hRope, 1, 1e-6)
	case 37: // a good attention on the guest's own cache, for contrast
		kv := ownKV()
		defer free(kv)
		ibuf[0], ibuf[1] = kv, 0
		return attention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, hVec, hVec, hRope, 1, 1e-6)
	}
	return -1
}
