//go:build wasip1

package wasm

import "unsafe"

// The host functions of module omni (abi.Ops lists them with parameter
// names). Every one returns an abi.Status.

//go:wasmimport omni abi_version
func hostVersion(out unsafe.Pointer) int32

//go:wasmimport omni new_matrix
func hostNewMatrix(rows, cols int32, data unsafe.Pointer, dataLen int32, bias unsafe.Pointer, biasLen int32, prec unsafe.Pointer, precLen int32, out unsafe.Pointer) int32

//go:wasmimport omni new_vector
func hostNewVector(data unsafe.Pointer, dataLen int32, out unsafe.Pointer) int32

//go:wasmimport omni new_table
func hostNewTable(rows, cols int32, data unsafe.Pointer, dataLen int32, out unsafe.Pointer) int32

//go:wasmimport omni write_table
func hostWriteTable(table, row0 int32, data unsafe.Pointer, dataLen int32) int32

//go:wasmimport omni new_rope
func hostNewRope(headDim, maxPos int32, theta float32, out unsafe.Pointer) int32

//go:wasmimport omni new_kv_cache
func hostNewKVCache(layers, kvHeads, headDim, maxPos int32, out unsafe.Pointer) int32

//go:wasmimport omni free
func hostFree(h int32) int32

//go:wasmimport omni bytes
func hostBytes(h int32, out unsafe.Pointer) int32

//go:wasmimport omni matmul
func hostMatMul(y unsafe.Pointer, yLen int32, x unsafe.Pointer, xLen int32, m, w int32) int32

// hostMatMulRaw is matmul with plain offsets (RawMatMul).
//
//go:wasmimport omni matmul
func hostMatMulRaw(y uint32, yLen int32, x uint32, xLen int32, m, w int32) int32

//go:wasmimport omni matmul_add
func hostMatMulAdd(y unsafe.Pointer, yLen int32, x unsafe.Pointer, xLen int32, m, w int32) int32

//go:wasmimport omni rms_norm
func hostRMSNorm(out unsafe.Pointer, outLen int32, x unsafe.Pointer, xLen int32, m, w int32, eps float32) int32

//go:wasmimport omni swiglu
func hostSwiGLU(out unsafe.Pointer, outLen int32, gu unsafe.Pointer, guLen int32, m int32) int32

//go:wasmimport omni embed
func hostEmbed(out unsafe.Pointer, outLen int32, ids unsafe.Pointer, idsLen int32, perRow, table int32) int32

//go:wasmimport omni attention
func hostAttention(out unsafe.Pointer, outLen int32, qkv unsafe.Pointer, qkvLen int32, m int32,
	caches unsafe.Pointer, cachesLen int32, pos unsafe.Pointer, posLen int32,
	layer, qNorm, kNorm, rope, heads int32, eps float32) int32

//go:wasmimport omni source_read
func hostSourceRead(name unsafe.Pointer, nameLen int32, row0, rows int32, out unsafe.Pointer, outLen int32) int32
