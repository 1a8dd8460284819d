package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestVersus checks the summary of paired runs against worked numbers:
// three rounds of (test, baseline) ms per frame (50, 100), (90, 200),
// (30, 100) give ratios 0.5, 0.45, 0.3, median 0.45 (the ratio of the
// medians, 50/100, would be 0.5: each round is paired under its own load);
// bytes 500 / 1000 = 0.5.
func TestVersus(t *testing.T) {
	run := func(prec string, ms float64, bytes int64, gbps, eff float64) *E2EReport {
		return &E2EReport{Precision: prec, Streams: 1, Frames: 30, MsPerFrame: ms, BytesPerFrame: bytes, ReadGBps: gbps, Efficiency: eff}
	}
	test := []*E2EReport{run("int4", 50, 500, 10, 0.4), run("int4", 90, 500, 20, 0.2), run("int4", 30, 500, 30, 0.6)}
	base := []*E2EReport{run("int8", 100, 1000, 11, 0.5), run("int8", 200, 1000, 21, 0.7), run("int8", 100, 1000, 31, 0.6)}
	r := Versus("synth:0.6b", test, base)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"ms ratio", r.MsRatio, 0.45},
		{"test ms", r.TestMsPerFrame, 50},
		{"baseline ms", r.BaselineMsPerFrame, 100},
		{"bytes ratio", r.BytesRatio, 0.5},
		{"test efficiency", r.TestEfficiency, 0.4},
		{"baseline efficiency", r.BaselineEfficiency, 0.6},
		{"read GB/s", r.ReadGBps, 20.5},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if r.Test != "int4" || r.Baseline != "int8" || r.Repeat != 3 || r.Frames != 30 {
		t.Errorf("report names %q vs %q, %d rounds of %d frames; want int4 vs int8, 3 of 30", r.Test, r.Baseline, r.Repeat, r.Frames)
	}
	var out bytes.Buffer
	r.WriteText(&out)
	if !strings.Contains(out.String(), "int4/int8: ms per frame 0.450") || !strings.Contains(out.String(), "bytes per frame 0.500") {
		t.Errorf("text report lacks the ratios:\n%s", out.String())
	}
	// Mismatched rounds: no ratios rather than a wrong pairing.
	if r := Versus("m", test, base[:2]); r.MsRatio != 0 || r.BytesRatio != 0 {
		t.Errorf("unpaired runs gave ratios %v, %v", r.MsRatio, r.BytesRatio)
	}
}
