package sched

import (
	"testing"
)

// Worked numbers of tests/core/test_edge_scheduling.py.

func TestPlaybackSlackWorkedNumbers(t *testing.T) {
	chunks := []ChunkArrival{{30, 80}, {190, 2000}}
	for _, tc := range []struct{ now, want float64 }{
		{30, 80},
		{110, 0}, // underrun starts here
		{150, -40},
		{190, 2080 - 160},
	} {
		if got := PlaybackSlack(chunks, tc.now); got != tc.want {
			t.Errorf("PlaybackSlack(%v, now %v) = %v, want %v", chunks, tc.now, got, tc.want)
		}
	}
	ramp := []ChunkArrival{{42, 160}, {200, 320}}
	if got := PlaybackSlack(ramp, 199); !(got > 0) {
		t.Errorf("ramp slack at 199 = %v, want > 0", got)
	}
	if got := PlaybackSlack(nil, 500); got != 0 {
		t.Errorf("PlaybackSlack(empty) = %v, want 0", got)
	}
	if got := PlaybackSlackFrom(chunks, 150, 0); got != 80-150 {
		t.Errorf("PlaybackSlackFrom(start 0, now 150) = %v, want %v", got, 80-150)
	}
	// The incremental tracker agrees with the pure function.
	var p Playback
	if p.Slack(10) != 0 {
		t.Error("Playback before any chunk has slack")
	}
	p.Arrive(30, 80)
	if got := p.Slack(150); got != -40 {
		t.Errorf("Playback.Slack(150) = %v, want -40", got)
	}
	p.Arrive(190, 2000)
	if got := p.Slack(190); got != 2080-160 {
		t.Errorf("Playback.Slack(190) = %v, want %v", got, 2080-160)
	}
}

func TestThrottleDecisionWorkedNumbers(t *testing.T) {
	for _, tc := range []struct {
		slack, eta, margin float64
		want               bool
	}{
		{50, 40, 20, true},
		{500, 160, 20, false},
		{-10, 0, 0, true},
	} {
		if got := ShouldThrottlePrefills(tc.slack, tc.eta, tc.margin); got != tc.want {
			t.Errorf("ShouldThrottlePrefills(%v, %v, %v) = %v, want %v", tc.slack, tc.eta, tc.margin, got, tc.want)
		}
	}
	if got := NextChunkETA(3, 40, 1.5); got != 121.5 {
		t.Errorf("NextChunkETA(3, 40, 1.5) = %v, want 121.5", got)
	}
}

func TestKVGeometryAndBytes(t *testing.T) {
	g := Qwen3TTSTalker()
	if got := g.BytesPerToken("bfloat16"); got != 114688 {
		t.Errorf("talker bf16 bytes/token = %d, want 114688", got)
	}
	if got := g.BytesPerToken("float32"); got != 229376 {
		t.Errorf("talker fp32 bytes/token = %d, want 229376", got)
	}
	for dt, want := range map[string]int{"float32": 4, "float16": 2, "bfloat16": 2, "fp8": 1, "float8_e4m3fn": 1, "auto": 2, "int3": 2} {
		if got := DTypeBytes(dt); got != want {
			t.Errorf("DTypeBytes(%q) = %d, want %d", dt, got, want)
		}
	}
	cfg := `{"talker_config": {"num_hidden_layers": 28, "num_key_value_heads": 8, "head_dim": 128, "num_attention_heads": 16}}`
	if got, err := GeometryFromConfig([]byte(cfg)); err != nil || got != g {
		t.Errorf("GeometryFromConfig(talker) = %+v, %v; want %+v", got, err, g)
	}
	// kv heads fall back to attention heads, head_dim to hidden / heads.
	cfg2 := `{"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64}`
	if got, err := GeometryFromConfig([]byte(cfg2)); err != nil || got != (KVGeometry{2, 4, 16}) {
		t.Errorf("GeometryFromConfig(fallbacks) = %+v, %v; want {2 4 16}", got, err)
	}
	for _, bad := range []string{`{"foo": 1}`, `not json`, `{"num_hidden_layers": "x"}`, `{"num_hidden_layers": 0, "num_attention_heads": 4, "hidden_size": 64}`} {
		if _, err := GeometryFromConfig([]byte(bad)); err == nil {
			t.Errorf("GeometryFromConfig(%s) succeeded, want an error", bad)
		}
	}
	if got := KVBytesForSeqs(1, 17, 100, 16); got != 32*100 {
		t.Errorf("KVBytesForSeqs(1, 17, 100, 16) = %d, want %d (block round-up)", got, 32*100)
	}
	if got := KVBytesForSeqs(1, 17, 100, 0); got != 32*100 {
		t.Errorf("KVBytesForSeqs(block 0 = default) = %d, want %d", got, 32*100)
	}
}

func TestAdmissionWorkedNumbers(t *testing.T) {
	bpt := Qwen3TTSTalker().BytesPerToken("bfloat16")
	need := KVBytesForSeqs(4, 2048, bpt, 16)
	if need != 4*2048*114688 || 4*2048*114688 != 896<<20 {
		t.Fatalf("need for 4 × 2048 = %d, want %d (896 MiB)", need, 4*2048*114688)
	}
	if KVBytesForSeqs(1, 2048, bpt, 16) != 224<<20 {
		t.Errorf("one 2048-token sequence ≠ 224 MiB")
	}
	if got := MaxSeqsWithoutPreemption(need, 2048, bpt, 16); got != 4 {
		t.Errorf("MaxSeqsWithoutPreemption(need) = %d, want 4", got)
	}
	if got := MaxSeqsWithoutPreemption(need-1, 2048, bpt, 16); got != 3 {
		t.Errorf("MaxSeqsWithoutPreemption(need-1) = %d, want 3", got)
	}
	if got := MaxSeqsWithoutPreemption(0, 2048, bpt, 16); got != 0 {
		t.Errorf("MaxSeqsWithoutPreemption(0) = %d, want 0", got)
	}
	if got := MaxSeqsWithoutPreemption(need, 2048, 0, 16); got != 0 {
		t.Errorf("MaxSeqsWithoutPreemption(bpt 0) = %d, want 0", got)
	}
}
