package simd

import "unsafe"

// streamChunk bounds the bytes one assembly call of StreamRead reads
// (≈ 40 µs from DRAM), so the GC is never held off.
const streamChunk = 1 << 20

// StreamRead reads every byte of buf once, sequentially, and returns a
// checksum of them (the 64-bit lanes summed) so the reads cannot be elided:
//
//	for i := range buf { sum += uint64(buf[i]) << (8 * (i % 8)) } // modulo 2⁶⁴
//
// It measures the streaming-read floor that the GEMV kernels are judged
// against (read_gbps in "omni bench kernels"). At the AVX-512 level it
// reads four streams at once, as the one- and two-row int8 kernels do (a
// core reads DRAM faster so), so the floor stays what the best kernel can
// reach.
func StreamRead(buf []byte) uint64 {
	var sum uint64
	for len(buf) > 0 {
		n := min(len(buf), streamChunk)
		sum += streamRead(active, buf[:n])
		buf = buf[n:]
	}
	return sum
}

func streamRead(l Level, buf []byte) uint64 {
	n := len(buf) &^ 255
	if l == AVX512VNNI {
		n = len(buf) &^ 1023 // four streams of 256-byte multiples
	}
	var sum uint64
	if n > 0 && haveAsm && l != Generic {
		p := unsafe.Pointer(unsafe.SliceData(buf))
		if l == AVX512VNNI {
			sum = streamReadAVX512(p, n)
		} else {
			sum = streamReadAVX2(p, n)
		}
		buf = buf[n:]
	}
	return sum + streamReadGeneric(buf)
}
