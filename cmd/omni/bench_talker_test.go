package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestBenchTalkerPrefills: the prefill figure is the median of the batch's
// prefills and --prefills more (the untimed one not counted), and the
// report says how many it took.
func TestBenchTalkerPrefills(t *testing.T) {
	for _, c := range []struct {
		prefills string
		want     float64
	}{{"0", 2}, {"3", 5}} {
		args := []string{"--threads", "1", "bench", "talker", "--model", "synth:tiny", "--batch", "2", "--prompt", "4", "--tokens", "2", "--prefills", c.prefills, "--json"}
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitOK {
			t.Fatalf("omni %v: exit %d: %s", args, code, errb.String())
		}
		var rep map[string]any
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("omni %v: %v", args, err)
		}
		if rep["prefills"] != c.want {
			t.Errorf("--prefills %s with batch 2: prefills %v, want %v", c.prefills, rep["prefills"], c.want)
		}
		if ms, _ := rep["prefill_ms"].(float64); !(ms > 0) {
			t.Errorf("--prefills %s: prefill_ms %v", c.prefills, rep["prefill_ms"])
		}
	}
}
