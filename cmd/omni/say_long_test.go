package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/omni-tts/omni/text"
)

// mixedText returns n bytes-or-so of text mixing the models' languages,
// paragraphs and the constructs the segmenter must not split at.
func mixedText(n int) string {
	parts := []string{
		"The quick brown fox jumps over the lazy dog, again and again; it never tires of it. ",
		"Dr. Smith paid $3.50 for coffee at 9.30 today! ",
		"我能吞下玻璃而不伤身体。今天天气很好，我们去公园散步吧！",
		"Съешь же ещё этих мягких французских булок, да выпей чаю? ",
		"私はガラスを食べられます。それは私を傷つけません。",
		"나는 유리를 먹을 수 있어요. 그래도 아프지 않아요. ",
		"Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.\n\n",
		"¿Qué pasó? ¡El pingüino hizo kilómetros bajo la lluvia! ",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(parts[i%len(parts)])
	}
	return b.String()
}

// letters returns the letters and digits of s.
func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return r
		}
		return -1
	}, s)
}

// TestSayTextFileLong: a 20,000-character mixed-language text becomes one
// WAV with every segment accounted for: the sidecar lists exactly the
// segments text.Segments draws, whose letters are the input's, each with
// audio, back to back (each starts where the one before ended), their
// frames summing to the WAV's samples; every segment reaching the small
// frame cap is reported as such.
func TestSayTextFileLong(t *testing.T) {
	dir := t.TempDir()
	src := mixedText(20000)
	in := filepath.Join(dir, "book.txt")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "book.wav")
	var stderr bytes.Buffer
	args := []string{"say", "--text-file", in, "-o", out, "--model", "synth:tiny", "--max-frames", "3", "--seed", "5", "--timestamps"}
	if code := run(args, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("say --text-file: exit %d: %s", code, stderr.String())
	}
	segs, err := text.Segments(src, text.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "book.timestamps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ts segmentsJSON
	if err := json.Unmarshal(raw, &ts); err != nil {
		t.Fatal(err)
	}
	if len(ts.Segments) != len(segs) || len(segs) < 50 {
		t.Fatalf("sidecar lists %d segments, text.Segments draws %d (want many)", len(ts.Segments), len(segs))
	}
	var said strings.Builder
	var capped []int
	frames, end := 0, 0.0
	for k, g := range ts.Segments {
		said.WriteString(g.Text)
		// A segment ends at the cap (reported as capped) or by a sampled
		// end of speech before it (the synthetic model can sample one).
		atCap := g.Frames == 3 && g.Reason == "length"
		early := g.Frames >= 1 && g.Frames < 3 && g.Reason == "eos"
		if g.Text != segs[k].Text || !(atCap || early) || g.Cap != 3 {
			t.Errorf("segment %d: %q %d frames ended %s (cap %d), want %q 3 frames ended length or fewer ended eos (cap 3)", k, g.Text, g.Frames, g.Reason, g.Cap, segs[k].Text)
		}
		if atCap {
			capped = append(capped, k)
		}
		if g.Start != end || g.End <= g.Start {
			t.Errorf("segment %d spans %g..%g s, the one before ended at %g", k, g.Start, g.End, end)
		}
		end = g.End
		frames += g.Frames
	}
	if letters(said.String()) != letters(src) {
		t.Error("the segments' letters are not the input's")
	}
	if !slices.Equal(ts.Capped, capped) || len(capped) < len(segs)/2 || ts.Truncated || ts.Frames != frames {
		t.Errorf("sidecar: capped %v, truncated %v, %d frames; want the %d segments ended at the cap %v (most of %d), false, %d",
			ts.Capped, ts.Truncated, ts.Frames, len(capped), capped, len(segs), frames)
	}
	wav, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(wav) < 44 || string(wav[36:40]) != "data" {
		t.Fatalf("%s: no WAV data chunk at byte 36", out)
	}
	if n := int(binary.LittleEndian.Uint32(wav[40:44])); n != frames*1920*2 || len(wav) != 44+n {
		t.Errorf("WAV data of %d bytes (file %d), want %d frames × 1920 samples × 2 bytes = %d", n, len(wav), frames, frames*1920*2)
	}
	if !strings.Contains(stderr.String(), "reached their frame cap") {
		t.Errorf("stderr does not report the capped segments:\n%s", stderr.String())
	}
}

// TestSayTextFileMaxAudio: --max-audio ends the output at its bound and
// says so, in the log and the sidecar.
func TestSayTextFileMaxAudio(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(in, []byte(mixedText(600)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.wav")
	var stderr bytes.Buffer
	args := []string{"say", "--text-file", in, "-o", out, "--model", "synth:tiny", "--max-frames", "4", "--max-audio", "0.8", "--timestamps", "--seed", "1"}
	if code := run(args, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "t.timestamps.json"))
	var ts segmentsJSON
	if err := json.Unmarshal(raw, &ts); err != nil {
		t.Fatal(err)
	}
	// 0.8 s = 10 frames: segments 0 and 1 whole (4 + 4), segment 2 cut at 2
	if !ts.Truncated || ts.Frames != 10 || ts.Segments[2].Frames != 2 || ts.Segments[3].Reason != "none" {
		t.Errorf("truncated %v after %d frames (segment 2: %d, segment 3 %s), want true after 10 (2, none)", ts.Truncated, ts.Frames, ts.Segments[2].Frames, ts.Segments[3].Reason)
	}
	if !strings.Contains(stderr.String(), "--max-audio 0.8 s ended the output") {
		t.Errorf("stderr does not report the bound:\n%s", stderr.String())
	}
}

// TestSayTextFileRefusals: bad long-form flags are refused by name.
func TestSayTextFileRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.txt")
	os.WriteFile(in, []byte("Hello."), 0o644)
	empty := filepath.Join(dir, "e.txt")
	os.WriteFile(empty, []byte(" … \n"), 0o644)
	bad := filepath.Join(dir, "b.txt")
	os.WriteFile(bad, []byte("a\xffb"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"say", "-o", "x.wav"}, "the text is empty"},
		{[]string{"say", "Hi.", "--text-file", in, "-o", "x.wav"}, "not both"},
		{[]string{"say", "--text-file", in, "-o", "-", "--timestamps"}, "--timestamps"},
		{[]string{"say", "--text-file", in, "-o", "x.wav", "--max-audio", "-1"}, "--max-audio"},
		{[]string{"say", "--text-file", in, "-o", "x.wav", "--segment-units", "2"}, "--segment-units"},
		{[]string{"say", "--text-file", empty, "-o", "x.wav"}, "no words"},
		{[]string{"say", "--text-file", bad, "-o", "x.wav"}, "not valid UTF-8"},
		{[]string{"say", "--text-file", filepath.Join(dir, "missing.txt"), "-o", "x.wav"}, "--text-file"},
	} {
		var stderr bytes.Buffer
		code := run(append(c.args, "--model", "synth:tiny"), &bytes.Buffer{}, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("omni %s: exit %d, stderr %q; want a refusal naming %q", strings.Join(c.args, " "), code, stderr.String(), c.want)
		}
	}
}
