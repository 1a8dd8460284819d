package simd

import (
	"math/rand/v2"
	"testing"
)

func refStreamRead(buf []byte) uint64 {
	var s uint64
	for i, v := range buf {
		s += uint64(v) << (8 * (i % 8))
	}
	return s
}

func TestStreamRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	buf := make([]byte, 3<<20+777)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 255, 256, 257, 1023, 1024, 1025, 1280, 4096, 100003, len(buf)} {
			for _, off := range []int{0, 8, 16} { // misaligned starts keep lane alignment
				b := buf[off : off+n-min(n, off)]
				if got, want := StreamRead(b), refStreamRead(b); got != want {
					t.Fatalf("StreamRead(%d bytes at +%d) = %#x, want %#x", len(b), off, got, want)
				}
			}
		}
	})
}

func BenchmarkStreamRead(b *testing.B) {
	buf := make([]byte, 1<<30)
	for i := range buf {
		buf[i] = byte(i)
	}
	eachLevel(b, func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			StreamRead(buf)
		}
	})
}
