package simd

import (
	"testing"
	"time"
)

// TestPeaksRun checks that the peak loops run at every assembly level and
// report a positive rate (no timing assertion: the figure is the bench's).
func TestPeaksRun(t *testing.T) {
	for _, l := range []Level{AVX2, AVX512VNNI} {
		t.Run(l.String(), func(t *testing.T) {
			if why := levelSkip(l); why != "" {
				if required(l) {
					t.Fatalf("%s, but %s requires it", why, requireEnv)
				}
				t.Skip(why)
			}
			defer Use(l)()
			f, err := FMAPeak(1, 10*time.Millisecond)
			if err != nil || !(f > 0) {
				t.Errorf("FMAPeak = %v, %v", f, err)
			}
			q, how, err := Int8Peak(1, 10*time.Millisecond)
			if err != nil || !(q > 0) || how == "" {
				t.Errorf("Int8Peak = %v, %q, %v", q, how, err)
			}
			bf, bhow, err := ConvBF16Peak(1, 10*time.Millisecond)
			if err != nil || !(bf > 0) || bhow == "" {
				t.Errorf("ConvBF16Peak = %v, %q, %v", bf, bhow, err)
			}
			t.Logf("%s: fp32 %.1f GFLOP/s, int8 (%s) %.1f GMAC/s, bf16 (%s) %.1f GMAC/s on 1 thread", l, f, how, q, bhow, bf)
		})
	}
	defer Use(Generic)()
	if _, err := FMAPeak(1, time.Millisecond); err == nil {
		t.Error("FMAPeak at the generic level: no error")
	}
}
