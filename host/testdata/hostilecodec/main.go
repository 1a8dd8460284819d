//go:build wasip1

// Command hostilecodec is a test guest for package host: it calls the codec
// decoder's host functions of module omni with wild pointers, wrong and
// negative lengths, stale, foreign, host-owned and wrongly-kinded handles.
// Each case returns the status the host gave; the test checks it, that the
// host survives, and that nothing is left charged.
package main

import "unsafe"

func main() {}

//go:wasmimport omni new_vector
func newVector(data uint32, n int32, out uint32) int32

//go:wasmimport omni free
func free(h int32) int32

//go:wasmimport omni new_conv
func newConv(out, in, kernel, dilation int32, w uint32, wLen int32, bias uint32, biasLen int32, prec uint32, precLen int32, res uint32) int32

//go:wasmimport omni new_conv_transpose
func newConvT(in, out, kernel, stride int32, w uint32, wLen int32, bias uint32, biasLen int32, prec uint32, precLen int32, res uint32) int32

//go:wasmimport omni new_depthwise
func newDepthwise(ch, kernel int32, w uint32, wLen int32, bias uint32, biasLen int32, res uint32) int32

//go:wasmimport omni new_snake
func newSnake(ch int32, alpha uint32, alphaLen int32, beta uint32, betaLen int32, res uint32) int32

//go:wasmimport omni new_window_kv
func newWindowKV(layers, heads, headDim, window int32, res uint32) int32

//go:wasmimport omni reset_kv
func resetKV(kv int32) int32

//go:wasmimport omni conv
func conv(y uint32, yLen int32, x uint32, xLen int32, m, batch, w int32) int32

//go:wasmimport omni conv_transpose
func convT(y uint32, yLen int32, x uint32, xLen int32, m, batch, w int32, carry uint32, carryLen int32) int32

//go:wasmimport omni depthwise
func depthwise(y uint32, yLen int32, x uint32, xLen int32, m, batch, w int32) int32

//go:wasmimport omni layer_norm
func layerNorm(out uint32, outLen int32, x uint32, xLen int32, m, w, b int32, eps float32) int32

//go:wasmimport omni gelu
func gelu(out uint32, outLen int32, x uint32, xLen int32) int32

//go:wasmimport omni snake
func snake(out uint32, outLen int32, x uint32, xLen int32, m, h int32) int32

//go:wasmimport omni scale
func scale(out uint32, outLen int32, x uint32, xLen int32, m, s int32) int32

//go:wasmimport omni window_attention
func windowAttention(out uint32, outLen int32, qkv uint32, qkvLen int32, m int32, kv uint32, kvLen int32, pos uint32, posLen int32, layer, heads, headDim int32, theta float32) int32

// Handles the test made on the host: a window kv state owned by the host
// (1 layer, 1 head of 4, window 3) and a vector of another engine.
var hHostWin, hForeign int32

// The guest's own objects (setup): a conv 2×4×3, a transposed conv 4→2
// kernel 4 stride 2, a depthwise conv 4×3, a snake of 4, a window kv
// state (1 layer, 1 head of 4, window 3), vectors of 4 and 8, and a freed
// vector.
var hConv, hConvT, hDW, hSnake, hWin, hVec4, hVec8, hStale int32

// buf is scratch guest memory the cases point into.
var buf [4096]float32
var ibuf [64]int32
var res [4]int32

func p(v *float32) uint32 { return uint32(uintptr(unsafe.Pointer(v))) }
func pi(v *int32) uint32  { return uint32(uintptr(unsafe.Pointer(v))) }
func ps(s string) uint32  { return uint32(uintptr(unsafe.Pointer(unsafe.StringData(s)))) }

const wild = 0xfffffff0

// made returns the new handle at res[0], or the negated status.
func made(s int32) int32 {
	if s != 0 {
		return -s
	}
	return res[0]
}

//go:wasmexport setup
func setup(hostWin, foreign int32) int32 {
	hHostWin, hForeign = hostWin, foreign
	for i := range buf {
		buf[i] = float32(i%13)*0.125 - 0.75
	}
	w := p(&buf[0])
	for _, h := range []*int32{&hConv, &hConvT, &hDW, &hSnake, &hWin, &hVec4, &hVec8, &hStale} {
		var s int32
		switch h {
		case &hConv:
			s = newConv(2, 4, 3, 1, w, 24, p(&buf[100]), 2, ps("fp32"), 4, pi(&res[0]))
		case &hConvT:
			s = newConvT(4, 2, 4, 2, w, 32, 0, 0, ps("fp32"), 4, pi(&res[0]))
		case &hDW:
			s = newDepthwise(4, 3, w, 12, p(&buf[100]), 4, pi(&res[0]))
		case &hSnake:
			s = newSnake(4, w, 4, p(&buf[8]), 4, pi(&res[0]))
		case &hWin:
			s = newWindowKV(1, 1, 4, 3, pi(&res[0]))
		case &hVec4, &hStale:
			s = newVector(w, 4, pi(&res[0]))
		case &hVec8:
			s = newVector(w, 8, pi(&res[0]))
		}
		if s != 0 {
			return s
		}
		*h = res[0]
	}
	return free(hStale)
}

// teardown frees the guest's own objects.
//
//go:wasmexport teardown
func teardown() int32 {
	for _, h := range []int32{hConvT, hDW, hSnake, hWin, hVec4, hVec8} {
		if s := free(h); s != 0 {
			return s
		}
	}
	return 0
}

// attack runs case k and returns the host's status (or -1 for a case that
// does not exist).
//
//go:wasmexport attack
func attack(k int32) int32 {
	y, x := p(&buf[2048]), p(&buf[0])
	var nan float32
	nan = nan / nan
	switch k {
	case 0: // a good conv, for contrast: 2 history + 2 new rows of 4 → 2 rows of 2
		return conv(y, 4, x, 16, 2, 1, hConv)
	case 1: // output outside memory
		return conv(wild, 4, x, 16, 2, 1, hConv)
	case 2: // input one element short
		return conv(y, 4, x, 15, 2, 1, hConv)
	case 3: // a window kv posing as a conv
		return conv(y, 4, x, 16, 2, 1, hWin)
	case 4: // zero rows
		return conv(y, 0, x, 8, 0, 1, hConv)
	case 5: // rows × segments past the limit
		return conv(y, 4, x, 16, 1<<20, 1<<10, hConv)
	case 6: // misaligned input
		return conv(y, 4, x+2, 16, 2, 1, hConv)
	case 7: // a good transposed conv: 2 rows of 4 → 4 rows of 2, carry 2 rows of 2
		return convT(y, 8, x, 8, 2, 1, hConvT, p(&buf[3000]), 4)
	case 8: // carry of the wrong length
		return convT(y, 8, x, 8, 2, 1, hConvT, p(&buf[3000]), 2)
	case 9: // carry outside memory
		return convT(y, 8, x, 8, 2, 1, hConvT, wild, 4)
	case 10: // depthwise input of the wrong length
		return depthwise(y, 8, x, 12, 2, 1, hDW)
	case 11: // a good depthwise: 2 history + 2 new rows of 4
		return depthwise(y, 8, x, 16, 2, 1, hDW)
	case 12: // layer norm with a NaN epsilon
		return layerNorm(y, 8, x, 8, 2, hVec4, hVec4, nan)
	case 13: // layer norm weight and bias of different widths
		return layerNorm(y, 8, x, 8, 2, hVec4, hVec8, 1e-5)
	case 14: // gelu of different lengths
		return gelu(y, 8, x, 9)
	case 15: // gelu of a negative length
		return gelu(y, -8, x, -8)
	case 16: // snake with a conv handle
		return snake(y, 8, x, 8, 2, hConv)
	case 17: // scale with a freed vector
		return scale(y, 8, x, 8, 2, hStale)
	case 18: // attention writing into a host-owned state
		ibuf[0], ibuf[1] = hHostWin, 0
		return windowAttention(y, 4, x, 12, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, 1, 4, 10000)
	case 19: // attention with another engine's handle as the state
		ibuf[0], ibuf[1] = hForeign, 0
		return windowAttention(y, 4, x, 12, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, 1, 4, 10000)
	case 20: // attention at a layer the state lacks
		ibuf[0], ibuf[1] = hWin, 0
		return windowAttention(y, 4, x, 12, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 3, 1, 4, 10000)
	case 21: // attention whose head width disagrees with the state
		ibuf[0], ibuf[1] = hWin, 0
		return windowAttention(y, 8, x, 24, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, 1, 8, 10000)
	case 22: // attention at a position out of order (the backend refuses it)
		ibuf[0], ibuf[1] = hWin, 5
		return windowAttention(y, 4, x, 12, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, 1, 4, 10000)
	case 23: // the state list outside memory
		return windowAttention(y, 4, x, 12, 1, wild, 1, pi(&ibuf[1]), 1, 0, 1, 4, 10000)
	case 24: // a good attention on the guest's own state, for contrast
		ibuf[0], ibuf[1] = hWin, 0
		return windowAttention(y, 4, x, 12, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, 1, 4, 10000)
	case 25: // reset a host-owned state
		return resetKV(hHostWin)
	case 26: // a good reset
		return resetKV(hWin)
	case 27: // a conv precision the host does not know
		return newConv(2, 4, 3, 1, x, 24, 0, 0, ps("fp16"), 4, pi(&res[0]))
	case 28: // conv weights outside memory
		return newConv(2, 4, 3, 1, wild, 24, 0, 0, ps("fp32"), 4, pi(&res[0]))
	case 29: // a conv bias of the wrong length
		return newConv(2, 4, 3, 1, x, 24, x, 3, ps("fp32"), 4, pi(&res[0]))
	case 30: // a transposed conv with kernel < stride
		return newConvT(4, 2, 2, 3, x, 16, 0, 0, ps("fp32"), 4, pi(&res[0]))
	case 31: // a window state far beyond any budget
		return newWindowKV(1<<20, 1<<20, 4096, 1<<20, pi(&res[0]))
	case 32: // result slot outside memory (nothing may be made)
		return newConv(2, 4, 3, 1, x, 24, 0, 0, ps("fp32"), 4, wild)
	case 33: // snake with α and β of the wrong length
		return newSnake(4, x, 3, x, 4, pi(&res[0]))
	case 34: // depthwise weights that are not finite (the backend refuses them)
		buf[3500] = nan
		return newDepthwise(4, 3, p(&buf[3496]), 12, 0, 0, pi(&res[0]))
	case 35: // a window state of odd head width
		return newWindowKV(1, 1, 5, 3, pi(&res[0]))
	case 36: // free the guest's own conv
		return free(hConv)
	case 37: // then use it
		return conv(y, 4, x, 16, 2, 1, hConv)
	case 38: // attention with a NaN rope base
		ibuf[0], ibuf[1] = hWin, 0
		return windowAttention(y, 4, x, 12, 1, pi(&ibuf[0]), 1, pi(&ibuf[1]), 1, 0, 1, 4, nan)
	case 39: // a negative segment count
		return convT(y, 8, x, 8, 2, -1, hConvT, p(&buf[3000]), 4)
	case 40: // a conv of negative channels
		return newConv(-2, 4, 3, 1, x, -24, 0, 0, ps("fp32"), 4, pi(&res[0]))
	}
	return -1
}
