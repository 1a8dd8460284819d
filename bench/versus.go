package bench

import (
	"fmt"
	"io"
)

// VersusReport is what "omni bench e2e --codes-only --versus P" prints:
// the same workload on two precisions, run back to back Repeat times
// (the test then the baseline each round), each run with its own floor
// measured beside it, and the ratios of the precision under test
// (--precision) to the baseline (--versus): ms and bytes per frame.
type VersusReport struct {
	Model    string `json:"model"`
	Test     string `json:"precision"`
	Baseline string `json:"versus"`
	Streams  int    `json:"streams"`
	Frames   int    `json:"frames"`
	Repeat   int    `json:"repeat"`

	TestRuns     []*E2EReport `json:"test_runs"`
	BaselineRuns []*E2EReport `json:"baseline_runs"`

	TestMsPerFrame     float64 `json:"test_ms_per_frame"`     // median over the runs
	BaselineMsPerFrame float64 `json:"baseline_ms_per_frame"` // median over the runs
	// MsRatio is the median over rounds of test ÷ baseline ms per frame
	// (each round's two runs back to back, under the same load).
	MsRatio            float64 `json:"ms_ratio"`
	TestBytesPerFrame  int64   `json:"test_bytes_per_frame"`
	BaseBytesPerFrame  int64   `json:"baseline_bytes_per_frame"`
	BytesRatio         float64 `json:"bytes_ratio"`
	TestEfficiency     float64 `json:"test_efficiency"`     // median of each run's floor ÷ ms
	BaselineEfficiency float64 `json:"baseline_efficiency"` // median of each run's floor ÷ ms
	ReadGBps           float64 `json:"read_gbps"`           // median of every run's floor
}

// Versus summarises paired runs: test[i] and base[i] ran back to back.
func Versus(model string, test, base []*E2EReport) *VersusReport {
	r := &VersusReport{Model: model, TestRuns: test, BaselineRuns: base, Repeat: len(test)}
	if len(test) == 0 || len(base) != len(test) {
		return r
	}
	r.Test, r.Baseline = test[0].Precision, base[0].Precision
	r.Streams, r.Frames = test[0].Streams, test[0].Frames
	var tm, bm, ratio, te, be, gb []float64
	for i := range test {
		tm = append(tm, test[i].MsPerFrame)
		bm = append(bm, base[i].MsPerFrame)
		if base[i].MsPerFrame > 0 {
			ratio = append(ratio, test[i].MsPerFrame/base[i].MsPerFrame)
		}
		te = append(te, test[i].Efficiency)
		be = append(be, base[i].Efficiency)
		gb = append(gb, test[i].ReadGBps, base[i].ReadGBps)
	}
	r.TestMsPerFrame, r.BaselineMsPerFrame, r.MsRatio = Median(tm), Median(bm), Median(ratio)
	r.TestEfficiency, r.BaselineEfficiency, r.ReadGBps = Median(te), Median(be), Median(gb)
	r.TestBytesPerFrame, r.BaseBytesPerFrame = test[0].BytesPerFrame, base[0].BytesPerFrame
	if r.BaseBytesPerFrame > 0 {
		r.BytesRatio = float64(r.TestBytesPerFrame) / float64(r.BaseBytesPerFrame)
	}
	return r
}

// WriteText writes the comparison as text.
func (r *VersusReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "e2e codes-only %s, %d stream(s) × %d frames, %d round(s) of %s then %s\n",
		r.Model, r.Streams, r.Frames, r.Repeat, r.Test, r.Baseline)
	for i := range r.TestRuns {
		fmt.Fprintf(w, "  round %d: %s %.2f ms/frame (floor %.2f at %.1f GB/s), %s %.2f ms/frame (floor %.2f at %.1f GB/s)\n", i+1,
			r.Test, r.TestRuns[i].MsPerFrame, r.TestRuns[i].FloorMsPerFrame, r.TestRuns[i].ReadGBps,
			r.Baseline, r.BaselineRuns[i].MsPerFrame, r.BaselineRuns[i].FloorMsPerFrame, r.BaselineRuns[i].ReadGBps)
	}
	fmt.Fprintf(w, "  medians: %s %.2f ms/frame (efficiency %.2f), %s %.2f ms/frame (efficiency %.2f), floors at %.1f GB/s\n",
		r.Test, r.TestMsPerFrame, r.TestEfficiency, r.Baseline, r.BaselineMsPerFrame, r.BaselineEfficiency, r.ReadGBps)
	fmt.Fprintf(w, "  %s/%s: ms per frame %.3f (median of the rounds' ratios), bytes per frame %.3f (%d MB / %d MB)\n",
		r.Test, r.Baseline, r.MsRatio, r.BytesRatio, r.TestBytesPerFrame>>20, r.BaseBytesPerFrame>>20)
}
