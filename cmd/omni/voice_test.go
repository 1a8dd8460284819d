package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeClip writes a 16-bit mono WAV of secs seconds at rate: two tones of
// frequency f and 3f.
func writeClip(t *testing.T, path string, rate int, secs, f float64) {
	t.Helper()
	n := int(secs * float64(rate))
	b := []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(2*rate))
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(2*n))
	for i := 0; i < n; i++ {
		x := 0.3*math.Sin(2*math.Pi*f*float64(i)/float64(rate)) + 0.1*math.Sin(2*math.Pi*3*f*float64(i)/float64(rate))
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(x*32767)))
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVoiceAddThenSay is issue 26's end-to-end check on synth:tiny-base: a
// clip → voice add → say --voice gives the same bytes as say --ref-audio
// with the same clip and seeds, in-context and x-vector-only; the
// reference matters (another clip, or the other mode, gives other audio);
// and the refusals name what is wrong.
func TestVoiceAddThenSay(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "voices")
	clip, other := filepath.Join(dir, "clip.wav"), filepath.Join(dir, "other.wav")
	writeClip(t, clip, 16000, 1.2, 140)
	writeClip(t, other, 24000, 1.2, 220)
	cli := func(wantCode int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != wantCode {
			t.Fatalf("omni %s: exit %d, want %d: %s", strings.Join(args, " "), code, wantCode, errb.String())
		}
		return out.String() + errb.String()
	}
	say := func(name string, args ...string) []byte {
		t.Helper()
		out := filepath.Join(dir, name)
		cli(0, append([]string{"say", "Good morning, everyone.", "--model", "synth:tiny-base", "--voice-dir", lib,
			"--max-frames", "10", "--min-frames", "10", "--seed", "3", "--predictor-seed", "4", "-q", "-o", out}, args...)...)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if n := wavSizes(t, b); n != 10*1920 {
			t.Fatalf("%s: %d samples, want 10 frames × 1920", name, n)
		}
		return b
	}
	cli(0, "voice", "add", "me", clip, "--model", "synth:tiny-base", "--voice-dir", lib, "--ref-text", "Hello there.", "--consent", "mine")
	cli(0, "voice", "add", "mex", clip, "--model", "synth:tiny-base", "--voice-dir", lib, "--x-vector-only")
	if ls := cli(0, "voice", "ls", "--voice-dir", lib); !strings.Contains(ls, "me ") || !strings.Contains(ls, "in-context (15 frames") || !strings.Contains(ls, "mex") || !strings.Contains(ls, "x-vector only") {
		t.Errorf("voice ls:\n%s", ls) // 1.2 s → 28800 samples at 24 kHz → ceil(28800/1920) = 15 frames
	}

	lib1 := say("lib.wav", "--voice", "me")
	ref1 := say("ref.wav", "--ref-audio", clip, "--ref-text", "Hello there.")
	if !bytes.Equal(lib1, ref1) {
		t.Error("say --voice me differs from say --ref-audio with the same clip and seeds")
	}
	// the WASI guest builds the same request and speaks the same bytes
	// (needs a guest.wasm built from this tree: go generate ./host/...)
	if wasm := say("wasm.wav", "--voice", "me", "--wasm"); !bytes.Equal(wasm, lib1) {
		t.Error("say --voice me --wasm differs from the native engine")
	}
	// Without --model, say --voice speaks on the voice's own model (the
	// default synth:0.6b cannot clone): the same bytes as naming it.
	var out, errb bytes.Buffer
	own := filepath.Join(dir, "own.wav")
	if code := run([]string{"say", "Good morning, everyone.", "--voice-dir", lib, "--voice", "me",
		"--max-frames", "10", "--min-frames", "10", "--seed", "3", "--predictor-seed", "4", "-q", "-o", own}, &out, &errb); code != 0 {
		t.Fatalf("say --voice me without --model: exit %d: %s", code, errb.String())
	}
	if b, err := os.ReadFile(own); err != nil || !bytes.Equal(b, lib1) {
		t.Errorf("say --voice me without --model (%v) differs from --model synth:tiny-base", err)
	}
	libX := say("libx.wav", "--voice", "mex")
	refX := say("refx.wav", "--ref-audio", clip, "--x-vector-only")
	if !bytes.Equal(libX, refX) {
		t.Error("x-vector only: say --voice mex differs from say --ref-audio --x-vector-only")
	}
	if bytes.Equal(libX, lib1) {
		t.Error("x-vector-only and in-context voices give the same audio")
	}
	if otherX := say("otherx.wav", "--ref-audio", other, "--x-vector-only"); bytes.Equal(otherX, refX) {
		t.Error("another reference clip gives the same audio: the x-vector is not used")
	}
	if otherI := say("otheri.wav", "--ref-audio", other, "--ref-text", "Hello there."); bytes.Equal(otherI, ref1) {
		t.Error("another reference clip gives the same in-context audio")
	}

	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{exitUsage, []string{"voice", "add", "you", clip, "--voice-dir", lib, "--model", "synth:tiny-base"}, "needs the clip's transcript"},
		{exitUsage, []string{"voice", "add", "../you", clip, "--voice-dir", lib, "--x-vector-only"}, "bad voice name"},
		{exitError, []string{"voice", "add", "me", clip, "--voice-dir", lib, "--x-vector-only", "--model", "synth:tiny-base"}, "already in"},
		{exitError, []string{"voice", "add", "you", clip, "--voice-dir", lib, "--x-vector-only", "--model", "synth:tiny"}, "not a Base model"},
		{exitError, []string{"voice", "add", "you", filepath.Join(dir, "lib.wav"), "--voice-dir", lib, "--x-vector-only", "--model", "synth:tiny-base", "--max-seconds", "0.1"}, "the bound is 0.1 s"},
		{exitUsage, []string{"say", "Hi.", "-o", filepath.Join(dir, "x.wav"), "--model", "synth:tiny-base", "--ref-audio", clip}, "needs the clip's transcript"},
		{exitUsage, []string{"say", "Hi.", "-o", filepath.Join(dir, "x.wav"), "--model", "synth:tiny-base", "--voice", "me", "--ref-text", "x"}, "go with --ref-audio"},
		{exitUsage, []string{"say", "Hi.", "-o", filepath.Join(dir, "x.wav"), "--voice", "me", "--ref-audio", clip}, "not both"},
		{exitError, []string{"say", "Hi.", "-o", filepath.Join(dir, "x.wav"), "--voice-dir", lib, "--model", "synth:tiny-base@2", "--voice", "me"}, `voice "me" was prepared for synth:tiny-base`},
		{exitError, []string{"say", "Hi.", "-o", filepath.Join(dir, "x.wav"), "--voice-dir", lib, "--model", "synth:tiny", "--voice", "me"}, "not a Base model"},
		{exitError, []string{"say", "Hi.", "-o", filepath.Join(dir, "x.wav"), "--voice-dir", lib, "--model", "synth:tiny-base", "--voice", "nobody"}, "no such voice"},
	} {
		if msg := cli(c.code, c.args...); !strings.Contains(msg, c.want) {
			t.Errorf("omni %s: %q does not say %q", strings.Join(c.args, " "), msg, c.want)
		}
	}
	noFile(t, "refused say", filepath.Join(dir, "x.wav"))
	cli(0, "voice", "rm", "me", "mex", "--voice-dir", lib)
	if msg := cli(exitError, "voice", "rm", "me", "--voice-dir", lib); !strings.Contains(msg, "no such voice") {
		t.Errorf("second rm: %s", msg)
	}
}

// TestVoiceOnBaseCheckpointDir writes synth:tiny-base as a checkpoint
// (omni model synth --variant base), checks its config.json says what a
// released Base config says (tts_model_type base, a speaker_encoder_config,
// no spk_id entries) and clones a voice on the directory: voice add, then
// say --voice; a voice of the synth: spec is refused there by name (other
// weights: the bf16 copy).
func TestVoiceOnBaseCheckpointDir(t *testing.T) {
	dir := t.TempDir()
	model, lib, clip := filepath.Join(dir, "tb"), filepath.Join(dir, "voices"), filepath.Join(dir, "clip.wav")
	writeClip(t, clip, 24000, 0.5, 180)
	cli := func(wantCode int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != wantCode {
			t.Fatalf("omni %s: exit %d, want %d: %s", strings.Join(args, " "), code, wantCode, errb.String())
		}
		return out.String() + errb.String()
	}
	cli(0, "model", "synth", "--size", "tiny", "--variant", "base", "--out", model)
	cfg, err := os.ReadFile(filepath.Join(model, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tts_model_type": "base"`, `"speaker_encoder_config": {`, `"enc_dim": 64`, `"spk_id": {}`} {
		if !bytes.Contains(cfg, []byte(want)) {
			t.Errorf("config.json lacks %s", want)
		}
	}
	if msg := cli(exitError, "model", "synth", "--size", "tiny-wide", "--variant", "base", "--out", filepath.Join(dir, "tw")); !strings.Contains(msg, "tiny-wide-base") {
		t.Errorf("tiny-wide base: %s", msg)
	}
	cli(0, "voice", "add", "d", clip, "--model", model, "--voice-dir", lib, "--ref-text", "Hi.")
	cli(0, "voice", "add", "s", clip, "--model", "synth:tiny-base", "--voice-dir", lib, "--ref-text", "Hi.")
	out := filepath.Join(dir, "d.wav")
	cli(0, "say", "Good morning.", "--model", model, "--voice-dir", lib, "--voice", "d", "--max-frames", "6", "--min-frames", "6", "-q", "-o", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := wavSizes(t, b); n != 6*1920 {
		t.Errorf("%d samples, want 6 frames × 1920", n)
	}
	if msg := cli(exitError, "say", "Hi.", "--model", model, "--voice-dir", lib, "--voice", "s", "-o", filepath.Join(dir, "s.wav")); !strings.Contains(msg, `voice "s" was prepared for synth:tiny-base`) {
		t.Errorf("synth voice on the directory: %s", msg)
	}
}
