package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestBenchVersusRefuses: --versus needs --codes-only and native runs, and
// a precision it knows; each refusal names the flag, before any model loads.
func TestBenchVersusRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "e2e", "--model", "synth:tiny", "--versus", "int8"}, "--codes-only"},
		{[]string{"bench", "e2e", "--model", "synth:tiny", "--codes-only", "--wasm", "--versus", "int8"}, "--wasm"},
		{[]string{"bench", "e2e", "--model", "synth:tiny", "--codes-only", "--versus", "int3"}, "--versus"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code == exitOK {
			t.Errorf("omni %v: exit 0, want a refusal", c.args)
		} else if !strings.Contains(errb.String(), c.want) {
			t.Errorf("omni %v: stderr %q does not name %s", c.args, errb.String(), c.want)
		}
	}
}

// TestBenchVersusRuns: a --versus run completes on the tiny model (it
// used to fail after the first timed run, handing bench.E2E the command's
// wrapper instead of the engine, which shows no weights), with one run of
// each precision per round, and its ratios are the runs' own: bytes per
// frame test ÷ baseline, 4-bit weights fewer bytes than int8.
func TestBenchVersusRuns(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"bench", "e2e", "--model", "synth:tiny", "--codes-only", "--precision", "int4", "--versus", "int8",
		"--frames", "3", "--warmup", "2", "--repeat", "2", "--threads", "1", "--cache-dir", t.TempDir(), "--json"}
	if code := run(args, &out, &errb); code != exitOK {
		t.Fatalf("omni %v: exit %d: %s", args, code, errb.String())
	}
	var rep struct {
		Test, Versus string
		TestRuns     []struct {
			BytesPerFrame int64 `json:"bytes_per_frame"`
		} `json:"test_runs"`
		BaselineRuns []struct {
			BytesPerFrame int64 `json:"bytes_per_frame"`
		} `json:"baseline_runs"`
		TestBytes  int64   `json:"test_bytes_per_frame"`
		BaseBytes  int64   `json:"baseline_bytes_per_frame"`
		BytesRatio float64 `json:"bytes_ratio"`
		MsRatio    float64 `json:"ms_ratio"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report %q: %v", out.String(), err)
	}
	if len(rep.TestRuns) != 2 || len(rep.BaselineRuns) != 2 {
		t.Fatalf("runs %d and %d, want 2 and 2 (--repeat 2)", len(rep.TestRuns), len(rep.BaselineRuns))
	}
	if rep.TestBytes != rep.TestRuns[0].BytesPerFrame || rep.BaseBytes != rep.BaselineRuns[0].BytesPerFrame {
		t.Errorf("bytes per frame %d / %d, runs say %d / %d", rep.TestBytes, rep.BaseBytes, rep.TestRuns[0].BytesPerFrame, rep.BaselineRuns[0].BytesPerFrame)
	}
	if !(rep.TestBytes > 0 && rep.TestBytes < rep.BaseBytes) {
		t.Errorf("int4 reads %d bytes a frame against int8's %d: want fewer", rep.TestBytes, rep.BaseBytes)
	}
	if want := float64(rep.TestBytes) / float64(rep.BaseBytes); math.Abs(rep.BytesRatio-want) > 1e-12 {
		t.Errorf("bytes_ratio %v, want %v", rep.BytesRatio, want)
	}
	if !(rep.MsRatio > 0) {
		t.Errorf("ms_ratio %v, want a positive ratio", rep.MsRatio)
	}
}
