package testvectors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOne writes one case file and runs it, returning its result.
func runOne(t *testing.T, body string) Result {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "case.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run([]string{dir}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results for one case", len(rep.Results))
	}
	return rep.Results[0]
}

func TestPolicyCasesFailWhenWrong(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		// Wrong numbers fail, naming the field.
		{`{"kind":"sched","name":"a","fn":"kv_bytes_per_token","args":{"num_layers":28,"num_kv_heads":8,"head_dim":128,"dtype":"bfloat16"},"expect":114687}`, "expect"},
		{`{"kind":"sched","name":"a","fn":"playback_slack","args":{"chunks":[[30,80]],"now_ms":110},"expect":0.001}`, "got 0"},
		{`{"kind":"sched","name":"a","fn":"should_throttle_prefills","args":{"slack_ms":50,"next_chunk_eta_ms":40,"margin_ms":20},"expect":false}`, "got true"},
		{`{"kind":"sched","name":"a","fn":"derive_chunk_schedule","args":{"chunks":[],"sample_rate":24000},"expect":{"min_frames":2,"margin_ms":50,"ramp":[2,4,8,16],"adaptive":true}}`, "expect.ramp"},
		{`{"kind":"stats","name":"a","files":[{"role":"r","pid":1,"counters":{"x":[1,2,3]}}],"expect":{"r":{"x":{"count":3,"sum_ms":6,"mean_ms":2,"p50_ms":2,"p95_ms":3,"max_ms":3.0001}}}}`, "max_ms"},
		{`{"kind":"stats","name":"a","files":[{"role":"r","pid":1,"counters":{"x":[1,2,3]}}],"expect":{"r":{}}}`, "the case does not"},
		{`{"kind":"stats","name":"a","files":[{"role":"r","pid":1,"counters":{"x":[1],"y":[2]}}],"expect":{"r":{"x":{"count":1,"sum_ms":1,"mean_ms":1,"p50_ms":1,"p95_ms":1,"max_ms":1},"y":{"count":1,"sum_ms":2,"mean_ms":2,"p50_ms":2,"p95_ms":2,"max_ms":2}}},"expect_attribution":[{"role":"r","counter":"x","share_of_frame":0.0125},{"role":"r","counter":"y","share_of_frame":0.025}]}`, "share_of_frame"},
		// Malformed cases are refused, naming the field.
		{`{"kind":"sched","name":"a","fn":"kv_bytes_per_tokens","args":{},"expect":1}`, "fn"},
		{`{"kind":"sched","name":"a","fn":"kv_bytes_per_token","args":{"num_layers":28},"expect":1}`, "args.dtype"},
		{`{"kind":"sched","name":"a","fn":"kv_bytes_for_seqs","args":{"max_num_seqs":1,"max_model_len":1,"bytes_per_token":1,"blocksize":16},"expect":16}`, "blocksize"},
		{`{"kind":"sched","name":"a","fn":"playback_slack","args":{"chunks":[[1,2,3]],"now_ms":1},"expect":1}`, "args.chunks[0]"},
		{`{"kind":"sched","name":"a","fn":"playback_slack","args":{"chunks":[],"now_ms":1}}`, "expect"},
		{`{"kind":"stats","name":"a","files":[{"role":"r","pid":1,"counters":{"x":["a"]}}],"expect":{}}`, "files"},
		{`{"kind":"stats","name":"a","expect":{}}`, "files"},
	} {
		r := runOne(t, tc.body)
		if r.Status != Fail || !strings.Contains(r.Message, tc.want) {
			t.Errorf("case %s: %s %q, want a failure mentioning %q", tc.body, r.Status, r.Message, tc.want)
		}
	}
	// Ties in attribution may come in either order.
	tie := `{"kind":"stats","name":"a","files":[{"role":"r","pid":1,"counters":{"x":[8],"y":[8]}}],"expect":{"r":{"x":{"count":1,"sum_ms":8,"mean_ms":8,"p50_ms":8,"p95_ms":8,"max_ms":8},"y":{"count":1,"sum_ms":8,"mean_ms":8,"p50_ms":8,"p95_ms":8,"max_ms":8}}},"expect_attribution":[{"role":"r","counter":"y","share_of_frame":0.1},{"role":"r","counter":"x","share_of_frame":0.1}]}`
	if r := runOne(t, tie); r.Status != Pass {
		t.Errorf("tied attribution in the other order: %s %s", r.Status, r.Message)
	}
}
