package main

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/omni-tts/omni/bench"
)

// TestBenchCodecJSON runs "omni bench codec --json" on the tiny synthetic
// codec for two precisions and checks the report's structure: per
// precision one run per frames-per-call and stream count, its peak, the
// MAC count, stage shares summing to 1, per stream-frame times, no
// allocations per step, an SNR for the reduced precision only.
func TestBenchCodecJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "codec", "--codec", "synth:tiny", "--precision", "fp32,int8", "--streams", "1,3", "--frames-per-call", "1,2",
		"--frames", "2", "--warmup", "1", "--repeats", "2", "--peak", "20ms", "--snr", "3", "--json"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep bench.CodecReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(rep.Precisions) != 2 || rep.MACsPerFrame <= 0 {
		t.Fatalf("report %+v", rep)
	}
	for pi, p := range rep.Precisions {
		if want := []string{"fp32", "int8"}[pi]; p.Precision != want {
			t.Errorf("precision %d is %q, want %q", pi, p.Precision, want)
		}
		if (p.SNRFrames == 3) != (p.Precision != "fp32") {
			t.Errorf("%s: SNR over %d frames", p.Precision, p.SNRFrames)
		}
		if len(p.Runs) != 4 {
			t.Fatalf("%s: %d runs, want 4", p.Precision, len(p.Runs))
		}
		for i, want := range [][2]int{{1, 1}, {1, 3}, {2, 1}, {2, 3}} {
			if r := p.Runs[i]; r.FramesPerCall != want[0] || r.Streams != want[1] {
				t.Errorf("%s run %d: %d frames per call × %d streams, want %d × %d", p.Precision, i, r.FramesPerCall, r.Streams, want[0], want[1])
			}
		}
		for _, r := range p.Runs {
			var sum float64
			for _, v := range r.StageShare {
				sum += v
			}
			if math.Abs(sum-1) > 1e-9 || len(r.StageShare) < 8 || r.StateBytesStream <= 0 {
				t.Errorf("%s run %+v: stage shares sum to %v", p.Precision, r, sum)
			}
			if got := r.MsPerStep / float64(r.Streams*r.FramesPerCall); math.Abs(r.MsPerStreamFrame-got) > 1e-9*got {
				t.Errorf("%s run %+v: ms_per_stream_frame %v, want ms_per_step / stream-frames = %v", p.Precision, r, r.MsPerStreamFrame, got)
			}
		}
	}
}
