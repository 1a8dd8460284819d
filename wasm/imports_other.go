//go:build !wasip1

package wasm

import (
	"unsafe"

	"github.com/omni-tts/omni/wasm/abi"
)

// Outside a WASI guest there is no host: every host function fails with
// abi.StatusNotWASI, so the package still builds (and vets) natively.

const notWASI = int32(abi.StatusNotWASI)

func hostVersion(unsafe.Pointer) int32 { return notWASI }
func hostNewMatrix(int32, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer) int32 {
	return notWASI
}
func hostNewVector(unsafe.Pointer, int32, unsafe.Pointer) int32                      { return notWASI }
func hostNewTable(int32, int32, unsafe.Pointer, int32, unsafe.Pointer) int32         { return notWASI }
func hostWriteTable(int32, int32, unsafe.Pointer, int32) int32                       { return notWASI }
func hostNewRope(int32, int32, float32, unsafe.Pointer) int32                        { return notWASI }
func hostNewKVCache(int32, int32, int32, int32, unsafe.Pointer) int32                { return notWASI }
func hostFree(int32) int32                                                           { return notWASI }
func hostBytes(int32, unsafe.Pointer) int32                                          { return notWASI }
func hostMatMul(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32) int32    { return notWASI }
func hostMatMulAdd(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32) int32 { return notWASI }
func hostRMSNorm(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, float32) int32 {
	return notWASI
}
func hostSwiGLU(unsafe.Pointer, int32, unsafe.Pointer, int32, int32) int32       { return notWASI }
func hostEmbed(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32) int32 { return notWASI }
func hostAttention(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, int32, int32, int32, float32) int32 {
	return notWASI
}
func hostSourceRead(unsafe.Pointer, int32, int32, int32, unsafe.Pointer, int32) int32 { return notWASI }
func hostMatMulRaw(uint32, int32, uint32, int32, int32, int32) int32                  { return notWASI }
