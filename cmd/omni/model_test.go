package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelSynthInspect writes the tiny synthetic model and inspects it:
// 83 tensors (text embedding, 4 text projection, codec embedding, 2 × 11
// talker layer tensors, talker norm, codec head, 15 predictor tables, 15
// heads, 2 × 11 predictor layer tensors, predictor norm), all bf16.
func TestModelSynthInspect(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	var out, errb bytes.Buffer
	if code := run([]string{"model", "synth", "--size", "tiny", "--outliers", "--seed", "3", "--out", dir}, &out, &errb); code != exitOK {
		t.Fatalf("model synth exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"model", "inspect", dir, "--json"}, &out, &errb); code != exitOK {
		t.Fatalf("model inspect exit %d: %s", code, errb.String())
	}
	var r struct {
		TensorCount int   `json:"tensor_count"`
		TotalBytes  int64 `json:"total_bytes"`
		Parameters  int64 `json:"parameters"`
		Tensors     []struct {
			Name, DType string
			Shape       []int
		} `json:"tensors"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out.String())
	}
	if r.TensorCount != 83 || len(r.Tensors) != 83 {
		t.Errorf("tensor_count %d (%d listed), want 83", r.TensorCount, len(r.Tensors))
	}
	if r.TotalBytes != 2*r.Parameters {
		t.Errorf("total_bytes %d, want 2 × %d parameters (bf16)", r.TotalBytes, r.Parameters)
	}
	for _, x := range r.Tensors {
		if x.DType != "BF16" {
			t.Errorf("%s dtype %s, want BF16", x.Name, x.DType)
		}
	}
	out.Reset()
	if code := run([]string{"model", "inspect", "synth:nope"}, &out, &errb); code != exitError || !strings.Contains(errb.String(), `unknown size "nope"`) {
		t.Errorf("inspect synth:nope exit %d, stderr %q", code, errb.String())
	}
}
