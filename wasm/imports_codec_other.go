//go:build !wasip1

package wasm

import "unsafe"

// Outside a WASI guest the codec's host functions fail with
// abi.StatusNotWASI, as the others do (imports_other.go).

func hostNewConv(int32, int32, int32, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer) int32 {
	return notWASI
}
func hostNewConvTranspose(int32, int32, int32, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer) int32 {
	return notWASI
}
func hostNewDepthwise(int32, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer) int32 {
	return notWASI
}
func hostNewSnake(int32, unsafe.Pointer, int32, unsafe.Pointer, int32, unsafe.Pointer) int32 {
	return notWASI
}
func hostNewWindowKV(int32, int32, int32, int32, unsafe.Pointer) int32 { return notWASI }
func hostResetKV(int32) int32                                          { return notWASI }
func hostConv(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, int32) int32 {
	return notWASI
}
func hostConvTranspose(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, int32, unsafe.Pointer, int32) int32 {
	return notWASI
}
func hostDepthwise(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, int32) int32 {
	return notWASI
}
func hostLayerNorm(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, int32, float32) int32 {
	return notWASI
}
func hostGELU(unsafe.Pointer, int32, unsafe.Pointer, int32) int32                { return notWASI }
func hostSnake(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32) int32 { return notWASI }
func hostScale(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32) int32 { return notWASI }
func hostWindowAttention(unsafe.Pointer, int32, unsafe.Pointer, int32, int32, unsafe.Pointer, int32, unsafe.Pointer, int32, int32, int32, int32, float32) int32 {
	return notWASI
}
