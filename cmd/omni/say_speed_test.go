package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaySpeed: --speed 2 and 0.5 write round(n/speed) samples of the 12
// frames synth:tiny makes, --speed 1 the same bytes as no flag, and a
// speed outside [0.25, 4] is refused naming the flag.
func TestSaySpeed(t *testing.T) {
	args := []string{"say", "Hello, world.", "--model", "synth:tiny", "--max-frames", "12", "--min-frames", "12", "--seed", "3", "-q", "-o", "-", "--format", "pcm"}
	out := func(extra ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(append(args, extra...), &stdout, &stderr); code != 0 {
			t.Fatalf("say %v: exit %d: %s", extra, code, stderr.String())
		}
		return stdout.Bytes()
	}
	plain := out()
	if len(plain) != 12*1920*2 {
		t.Fatalf("no --speed: %d bytes, want %d", len(plain), 12*1920*2)
	}
	if one := out("--speed", "1"); !bytes.Equal(one, plain) {
		t.Error("--speed 1 changed the samples")
	}
	for _, c := range []struct {
		speed string
		n     int
	}{{"2", 12 * 1920 / 2}, {"0.5", 12 * 1920 * 2}} {
		if got := len(out("--speed", c.speed)) / 2; got != c.n {
			t.Errorf("--speed %s: %d samples, want %d", c.speed, got, c.n)
		}
	}
	for _, bad := range []string{"5", "0.1", "0"} {
		var stderr bytes.Buffer
		if code := run(append(args, "--speed", bad), &bytes.Buffer{}, &stderr); code == 0 || !strings.Contains(stderr.String(), "--speed") {
			t.Errorf("--speed %s: exit %d, stderr %q; want a refusal naming --speed", bad, code, stderr.String())
		}
	}
}

// TestSayOpus: -o NAME.opus writes Ogg Opus that ffmpeg decodes to exactly
// the 4 frames synth:tiny made (the padding trimmed by the granule).
func TestSayOpus(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed: no independent Opus decoder")
	}
	path := filepath.Join(t.TempDir(), "say.opus")
	var stderr bytes.Buffer
	args := []string{"say", "Hi.", "--model", "synth:tiny", "--max-frames", "4", "--min-frames", "4", "--seed", "3", "-q", "-o", path}
	if code := run(args, io.Discard, &stderr); code != 0 {
		t.Fatalf("say -o say.opus: exit %d: %s", code, stderr.String())
	}
	out, err := exec.Command(ffmpeg, "-v", "error", "-i", path, "-f", "s16le", "-ar", "24000", "-ac", "1", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg decode: %v", err)
	}
	if len(out) != 4*1920*2 {
		t.Errorf("say.opus decodes to %d bytes, want %d", len(out), 4*1920*2)
	}
}

// TestSayTextFileSpeed: --text-file at --speed 2 writes round(n/2) samples
// of the frames the sidecar counts, and the sidecar's times are in the
// stretched audio: each segment starts where the frames before it end,
// at 0.08 s / 2 per frame.
func TestSayTextFileSpeed(t *testing.T) {
	dir := t.TempDir()
	src := strings.Repeat("First sentence here. A second one follows! And a third? Yes, four. ", 6)
	in := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "text.pcm")
	var stderr bytes.Buffer
	args := []string{"say", "--text-file", in, "-o", out, "--model", "synth:tiny", "--max-frames", "3", "--seed", "5", "--timestamps", "--speed", "2", "-q"}
	if code := run(args, io.Discard, &stderr); code != 0 {
		t.Fatalf("say --text-file --speed 2: exit %d: %s", code, stderr.String())
	}
	var ts segmentsJSON
	raw, err := os.ReadFile(filepath.Join(dir, "text.timestamps.json"))
	if err == nil {
		err = json.Unmarshal(raw, &ts)
	}
	if err != nil || len(ts.Segments) < 2 {
		t.Fatalf("sidecar: %v, %d segments; want several", err, len(ts.Segments))
	}
	frames := 0
	for k, sg := range ts.Segments {
		a, b := float64(frames)*0.04, float64(frames+sg.Frames)*0.04
		if math.Abs(sg.Start-a) > 1e-9 || math.Abs(sg.End-b) > 1e-9 {
			t.Errorf("segment %d spans [%g, %g] s, want [%g, %g]", k, sg.Start, sg.End, a, b)
		}
		frames += sg.Frames
	}
	pcm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := int(math.Round(float64(frames*1920) / 2)); frames == 0 || ts.Frames != frames || len(pcm)/2 != want || math.Abs(ts.Seconds-float64(frames)*0.04) > 1e-9 {
		t.Errorf("%d samples, sidecar %d frames (segments %d), %g s; want %d samples, %g s", len(pcm)/2, ts.Frames, frames, ts.Seconds, want, float64(frames)*0.04)
	}
}
