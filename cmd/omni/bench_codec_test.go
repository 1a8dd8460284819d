package main

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestBenchCodecJSON runs "omni bench codec --json" on the tiny synthetic
// codec and checks the report's structure: one run per frames-per-call and
// stream count, the MAC count, stage shares summing to 1, an SNR for the
// reduced precision.
func TestBenchCodecJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "codec", "--codec", "synth:tiny", "--precision", "int8", "--streams", "1,3", "--frames-per-call", "1,2",
		"--frames", "2", "--warmup", "1", "--peak", "20ms", "--snr", "3", "--json"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep codecReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(rep.Runs) != 4 || rep.MACsPerFrame <= 0 || rep.SNRFrames != 3 {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range [][2]int{{1, 1}, {1, 3}, {2, 1}, {2, 3}} {
		if r := rep.Runs[i]; r.FramesPerCall != want[0] || r.Streams != want[1] {
			t.Errorf("run %d: %d frames per call × %d streams, want %d × %d", i, r.FramesPerCall, r.Streams, want[0], want[1])
		}
	}
	for _, r := range rep.Runs {
		var sum float64
		for _, v := range r.StageShare {
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 || len(r.StageShare) < 8 || r.MsPerFrame <= 0 || r.StateBytesStream <= 0 {
			t.Errorf("run %+v: stage shares sum to %v", r, sum)
		}
	}
}
