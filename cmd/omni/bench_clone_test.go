package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchE2EClone runs bench e2e with --clone-frames on the tiny Base
// model: the report names the reference length, the timed stream primed
// its own reference once (the warm-up's was another, so no primed state
// was reused), and the flag is refused where it cannot measure (codes
// only) and on a model that cannot clone, naming why.
func TestBenchE2EClone(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"bench", "e2e", "--model", "synth:tiny-base", "--clone-frames", "30", "--frames", "4", "--warmup", "2",
		"--threads", "1", "--cache-dir", t.TempDir(), "--json"}
	if code := run(args, &out, &errb); code != exitOK {
		t.Fatalf("omni %v: exit %d: %s", args, code, errb.String())
	}
	var rep struct {
		CloneFrames int `json:"clone_frames"`
		Frames      int `json:"frames"`
		Attribution []struct {
			Counter string `json:"counter"`
			Count   int    `json:"count"`
		} `json:"attribution"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report %q: %v", out.String(), err)
	}
	if rep.CloneFrames != 30 || rep.Frames != 4 {
		t.Errorf("clone_frames %d, frames %d, want 30 and 4", rep.CloneFrames, rep.Frames)
	}
	counts := map[string]int{}
	for _, a := range rep.Attribution {
		counts[a.Counter] = a.Count
	}
	if counts["codec.ref_prefix_ms"] != 1 || counts["codec.ref_prefix_hits"] != 0 {
		t.Errorf("primings %d, primed-state hits %d in the timed pass, want 1 and 0 (its own reference)", counts["codec.ref_prefix_ms"], counts["codec.ref_prefix_hits"])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "synth:tiny-base", "--clone-frames", "30", "--codes-only"}, "--clone-frames measures with audio"},
		{[]string{"--model", "synth:tiny", "--clone-frames", "30", "--frames", "2", "--warmup", "0"}, "needs a Base model"},
		{[]string{"--model", "synth:tiny-base", "--clone-frames", "-1"}, "--clone-frames -1 outside"},
	} {
		out.Reset()
		errb.Reset()
		a := append([]string{"bench", "e2e", "--threads", "1", "--cache-dir", t.TempDir()}, c.args...)
		if code := run(a, &out, &errb); code == exitOK || !strings.Contains(errb.String(), c.want) {
			t.Errorf("omni %v: exit %d, stderr %q, want a refusal naming %q", a, code, errb.String(), c.want)
		}
	}
}
