//go:build wasip1

package wasm

import "unsafe"

// The codec decoder's host functions of module omni (abi.Ops lists them
// with parameter names). Every one returns an abi.Status.

//go:wasmimport omni new_conv
func hostNewConv(out, in, kernel, dilation int32, w unsafe.Pointer, wLen int32, bias unsafe.Pointer, biasLen int32, prec unsafe.Pointer, precLen int32, res unsafe.Pointer) int32

//go:wasmimport omni new_conv_transpose
func hostNewConvTranspose(in, out, kernel, stride int32, w unsafe.Pointer, wLen int32, bias unsafe.Pointer, biasLen int32, prec unsafe.Pointer, precLen int32, res unsafe.Pointer) int32

//go:wasmimport omni new_depthwise
func hostNewDepthwise(ch, kernel int32, w unsafe.Pointer, wLen int32, bias unsafe.Pointer, biasLen int32, res unsafe.Pointer) int32

//go:wasmimport omni new_snake
func hostNewSnake(ch int32, alpha unsafe.Pointer, alphaLen int32, beta unsafe.Pointer, betaLen int32, res unsafe.Pointer) int32

//go:wasmimport omni new_window_kv
func hostNewWindowKV(layers, heads, headDim, window int32, res unsafe.Pointer) int32

//go:wasmimport omni reset_kv
func hostResetKV(kv int32) int32

//go:wasmimport omni conv
func hostConv(y unsafe.Pointer, yLen int32, x unsafe.Pointer, xLen int32, m, batch, w int32) int32

//go:wasmimport omni conv_transpose
func hostConvTranspose(y unsafe.Pointer, yLen int32, x unsafe.Pointer, xLen int32, m, batch, w int32, carry unsafe.Pointer, carryLen int32) int32

//go:wasmimport omni depthwise
func hostDepthwise(y unsafe.Pointer, yLen int32, x unsafe.Pointer, xLen int32, m, batch, w int32) int32

//go:wasmimport omni layer_norm
func hostLayerNorm(out unsafe.Pointer, outLen int32, x unsafe.Pointer, xLen int32, m, w, b int32, eps float32) int32

//go:wasmimport omni gelu
func hostGELU(out unsafe.Pointer, outLen int32, x unsafe.Pointer, xLen int32) int32

//go:wasmimport omni snake
func hostSnake(out unsafe.Pointer, outLen int32, x unsafe.Pointer, xLen int32, m, snake int32) int32

//go:wasmimport omni scale
func hostScale(out unsafe.Pointer, outLen int32, x unsafe.Pointer, xLen int32, m, s int32) int32

//go:wasmimport omni window_attention
func hostWindowAttention(out unsafe.Pointer, outLen int32, qkv unsafe.Pointer, qkvLen int32, m int32,
	kv unsafe.Pointer, kvLen int32, pos unsafe.Pointer, posLen int32, layer, heads, headDim int32, theta float32) int32
