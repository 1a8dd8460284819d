package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestBenchKernelsJSON runs "omni bench kernels --json" on a small data set
// and checks that it prints one JSON object with every figure.
func TestBenchKernelsJSON(t *testing.T) {
	for _, args := range [][]string{
		{"--threads", "1", "bench", "kernels", "--json", "--gib", "0.01", "--reps", "1"},
		{"bench", "kernels", "--json", "--gib", "0.01", "--reps", "1", "--block", "64"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitOK {
			t.Fatalf("omni %v: exit %d, stderr %s", args, code, errb.String())
		}
		var rep map[string]any
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("omni %v: stdout is not JSON: %v", args, err)
		}
		if dec.More() {
			t.Fatalf("omni %v: more than one JSON value on stdout", args)
		}
		for _, k := range []string{"level", "threads", "read_gbps", "gemv_int8_gbps", "gemv_int8_efficiency", "gemm_m8_over_m1", "gemv_int4_gbps", "gemv_int4_efficiency", "gemv_fp32_gbps"} {
			if _, ok := rep[k]; !ok {
				t.Errorf("omni %v: no %q in %v", args, k, rep)
			}
		}
		if rep["level"] == "avx512vnni" { // the level with quad kernels measures them both ways
			for _, k := range []string{"gemv_int8_other_prefetch_efficiency", "gemv_int4_other_prefetch_efficiency"} {
				if _, ok := rep[k]; !ok {
					t.Errorf("omni %v: no %q at the AVX-512 level", args, k)
				}
			}
		}
		by, _ := rep["by_threads"].([]any)
		if args[0] == "--threads" {
			if rep["threads"] != 1.0 || by != nil {
				t.Errorf("omni %v: threads %v, by_threads %v", args, rep["threads"], by)
			}
		} else if len(by) != 2 || by[0].(map[string]any)["threads"] != 1.0 || by[1].(map[string]any)["threads"] != 2.0 {
			t.Errorf("omni %v: by_threads %v, want threads 1 and 2", args, by)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "kernels", "--block", "48", "--gib", "0.01"}, &out, &errb); code != exitUsage {
		t.Errorf("--block 48: exit %d, want %d (stderr %s)", code, exitUsage, errb.String())
	}
}
