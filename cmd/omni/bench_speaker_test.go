package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchSpeakerJSON runs "omni bench speaker --json" on the tiny
// synthetic encoder and checks the report: the frame count of the clip,
// the MAC count of the geometry, figures present, no allocations.
func TestBenchSpeakerJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "speaker", "--model", "synth:tiny", "--seconds", "0.5", "--runs", "2", "--peak", "20ms", "--json"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep speakerReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// 12000 samples: ⌊12000/256⌋ = 46 frames
	if rep.MelFrames != 46 || rep.MACs <= 0 || rep.MsPerClip <= 0 || rep.MsPerAudioSec <= 0 || rep.AllocsPerEmbed != 0 {
		t.Fatalf("report %+v", rep)
	}
	code = run([]string{"bench", "speaker", "--model", "synth:huge"}, &out, &errb)
	if code == exitOK || !strings.Contains(errb.String(), "synth:real and synth:tiny") {
		t.Fatalf("synth:huge: exit %d, %s", code, errb.String())
	}
}
