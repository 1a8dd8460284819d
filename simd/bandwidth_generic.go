package simd

import "encoding/binary"

// streamReadGeneric is StreamRead in plain Go.
func streamReadGeneric(buf []byte) uint64 {
	var s0, s1, s2, s3 uint64
	for len(buf) >= 32 {
		s0 += binary.LittleEndian.Uint64(buf[0:])
		s1 += binary.LittleEndian.Uint64(buf[8:])
		s2 += binary.LittleEndian.Uint64(buf[16:])
		s3 += binary.LittleEndian.Uint64(buf[24:])
		buf = buf[32:]
	}
	for i, v := range buf {
		s0 += uint64(v) << (8 * (i % 8))
	}
	return s0 + s1 + s2 + s3
}
