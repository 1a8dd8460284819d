package simd

import (
	"fmt"
	"testing"
)

// BenchmarkEncoderConvShapes runs the codec encoder's SEANet convolutions
// (the released tokenizer's geometry) on one 40-frame chunk (3.2 s of 24 kHz
// audio) through a 2-thread Backend, one shape at a time, in GMAC/s: where
// an encode's conv time goes.
func BenchmarkEncoderConvShapes(b *testing.B) {
	for _, prec := range []string{"fp32", "bf16"} {
		b.Run(prec, func(b *testing.B) { benchEncoderConvShapes(b, prec) })
	}
}

func benchEncoderConvShapes(b *testing.B, prec string) {
	shapes := []struct {
		name          string
		in, out, k, m int
	}{
		{"first_1to64_k7", 1, 64, 7, 76800},
		{"s0_res1_64to32_k3", 64, 32, 3, 76800},
		{"s0_res2_32to64_k1", 32, 64, 1, 76800},
		{"s0_down_256to128_k2", 256, 128, 2, 19200},
		{"s1_res1_128to64_k3", 128, 64, 3, 19200},
		{"s1_res2_64to128_k1", 64, 128, 1, 19200},
		{"s1_down_640to256_k2", 640, 256, 2, 3840},
		{"s2_res1_256to128_k3", 256, 128, 3, 3840},
		{"s2_res2_128to256_k1", 128, 256, 1, 3840},
		{"s2_down_1536to512_k2", 1536, 512, 2, 640},
		{"s3_res1_512to256_k3", 512, 256, 3, 640},
		{"s3_res2_256to512_k1", 256, 512, 1, 640},
		{"s3_down_4096to1024_k2", 4096, 1024, 2, 80},
		{"last_1024to512_k3", 1024, 512, 3, 80},
	}
	eachLevel(b, func(b *testing.B) {
		be := NewBackend(2)
		defer be.Close()
		for _, s := range shapes {
			b.Run(s.name, func(b *testing.B) {
				w := make([]float32, s.out*s.in*s.k)
				lcgFill(w, 1, 0.1)
				h, err := be.NewConv(s.out, s.in, s.k, 1, w, make([]float32, s.out), prec)
				if err != nil {
					b.Fatal(err)
				}
				x := make([]float32, (s.m+s.k-1)*s.in)
				lcgFill(x, 2, 1)
				y := make([]float32, s.m*s.out)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := be.Conv(y, x, s.m, 1, h); err != nil {
						b.Fatal(err)
					}
				}
				macs := float64(s.m) * float64(s.in*s.k*s.out)
				b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1e3, "ms/op")
			})
		}
	})
}

var _ = fmt.Sprint
