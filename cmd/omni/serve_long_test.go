package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestServeMaxReplyAudio: the bound becomes frames of 80 ms; a bad value
// is refused by name before any engine is opened.
func TestServeMaxReplyAudio(t *testing.T) {
	o, err := (&longServeFlags{MaxReplyAudio: 2}).longOptions("omni")
	if err != nil || o.MaxReplyFrames != 25 || o.Name != "omni" {
		t.Errorf("--max-reply-audio 2: %+v, %v; want 25 frames", o, err)
	}
	var stderr bytes.Buffer
	if code := run([]string{"serve", "--model", "synth:tiny", "--max-reply-audio", "-1"}, &bytes.Buffer{}, &stderr); code == 0 || !strings.Contains(stderr.String(), "--max-reply-audio") {
		t.Errorf("serve --max-reply-audio -1: exit %d, stderr %q; want a refusal naming the flag", code, stderr.String())
	}
}
