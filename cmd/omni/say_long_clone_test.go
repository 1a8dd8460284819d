package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSayTextFileVoice: a long text speaks in a library voice. A text of
// one segment read from a file gives the very bytes of the same text as an
// argument (the single-request path TestVoiceAddThenSay checks against
// --ref-audio), and a text of several segments speaks every one of them.
func TestSayTextFileVoice(t *testing.T) {
	dir := t.TempDir()
	lib, clip := filepath.Join(dir, "voices"), filepath.Join(dir, "clip.wav")
	writeClip(t, clip, 24000, 1.0, 180)
	cli := func(args ...string) {
		t.Helper()
		var errb bytes.Buffer
		if code := run(args, io.Discard, &errb); code != 0 {
			t.Fatalf("omni %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
	}
	cli("voice", "add", "me", clip, "--model", "synth:tiny-base", "--voice-dir", lib, "--ref-text", "A steady tone.")
	common := []string{"--voice-dir", lib, "--voice", "me", "--max-frames", "8", "--min-frames", "8", "--seed", "5", "--predictor-seed", "6", "-q"}

	const one = "Good morning, everyone."
	txt := filepath.Join(dir, "one.txt")
	if err := os.WriteFile(txt, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	arg, file := filepath.Join(dir, "arg.wav"), filepath.Join(dir, "file.wav")
	cli(append([]string{"say", one, "-o", arg}, common...)...)
	cli(append([]string{"say", "--text-file", txt, "-o", file}, common...)...)
	a, _ := os.ReadFile(arg)
	f, _ := os.ReadFile(file)
	if wavSizes(t, a) != 8*1920 || !bytes.Equal(a, f) {
		t.Errorf("say --text-file (one segment) --voice: %d bytes, differs from the same text as an argument (%d bytes)", len(f), len(a))
	}

	long := strings.Repeat("This sentence is spoken in a cloned voice. ", 12)
	txt = filepath.Join(dir, "long.txt")
	if err := os.WriteFile(txt, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "long.wav")
	cli(append([]string{"say", "--text-file", txt, "--timestamps", "-o", out}, common...)...)
	b, err := os.ReadFile(sidecarPath(out))
	if err != nil {
		t.Fatal(err)
	}
	var side struct {
		Segments []struct {
			Frames int `json:"frames"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	w, _ := os.ReadFile(out)
	total := 0
	for _, s := range side.Segments {
		total += s.Frames
	}
	if len(side.Segments) < 2 || total == 0 || wavSizes(t, w) != total*1920 {
		t.Errorf("%d segments, %d frames in the sidecar, %d samples in the WAV", len(side.Segments), total, wavSizes(t, w))
	}
}
