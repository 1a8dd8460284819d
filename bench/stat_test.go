package bench

import (
	"math"
	"strings"
	"testing"
)

// TestMedianQuantile checks the one median and quantile against values
// worked by hand (numpy's linear interpolation).
func TestMedianQuantile(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{8, 1, 4, 2}, 3}} {
		in := append([]float64(nil), c.v...)
		if got := Median(c.v); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.v, got, c.want)
		}
		for i := range in {
			if in[i] != c.v[i] {
				t.Errorf("Median modified its input: %v, was %v", c.v, in)
			}
		}
	}
	v := []float64{1, 2, 4, 8}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.25, 1.75}, {0.5, 3}, {0.75, 5}, {1, 8}} {
		if got := Quantile(v, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", v, c.q, got, c.want)
		}
	}
}

// TestFloorFormulas checks the floor arithmetic with worked numbers: 1 GB
// at 20 GB/s is 50 ms; a 0.6 GB talker pass plus 15 predictor passes of
// 0.02 GB, the first from DRAM at 20 GB/s and 14 from L3 at 100 GB/s, is
// (0.62/20 + 14·0.02/100) s = 31 + 2.8 ms.
func TestFloorFormulas(t *testing.T) {
	if got := FloorMS(1e9, 20); math.Abs(got-50) > 1e-9 {
		t.Errorf("FloorMS(1 GB, 20 GB/s) = %v ms, want 50", got)
	}
	if got := Efficiency(50, 100); got != 0.5 {
		t.Errorf("Efficiency(50, 100) = %v, want 0.5", got)
	}
	if got := MixedFloorMS(600e6, 300e6, 15, 20, 100); math.Abs(got-33.8) > 1e-9 {
		t.Errorf("MixedFloorMS = %v ms, want 33.8", got)
	}
}

// TestSweepOutputs checks that the sweep's markdown has one row per run
// and its chart one line per thread count.
func TestSweepOutputs(t *testing.T) {
	s := &Sweep{Model: "m", Precision: "int8", Frames: 30, Runs: []*E2EReport{
		{Threads: 1, Streams: 1, MsPerFrame: 100, RTF: 1.25}, {Threads: 1, Streams: 4, MsPerFrame: 150, RTF: 1.875},
		{Threads: 2, Streams: 1, MsPerFrame: 60, RTF: 0.75},
	}}
	md := s.Markdown()
	if n := strings.Count(md, "\n| "); n != 1+len(s.Runs) { // header + runs
		t.Errorf("markdown has %d table rows, want %d:\n%s", n, 1+len(s.Runs), md)
	}
	svg := s.SVG([]int{1, 2})
	if n := strings.Count(svg, "<polyline"); n != 4 { // two panels × two thread counts
		t.Errorf("chart has %d lines, want 4", n)
	}
}
