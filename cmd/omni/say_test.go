package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// soxSamples returns sox's view of a WAV: rate, channels and the samples it
// reads (sox decodes the data; for a pipe-written WAV the header's sizes
// are the unknown-length sentinel and sox reads to the end of the data).
func soxSamples(t *testing.T, path string) (rate, channels string, samples int) {
	t.Helper()
	info := func(flag string) string {
		out, err := exec.Command("sox", "--i", flag, path).Output()
		if err != nil {
			t.Fatalf("sox --i %s %s: %v", flag, path, err)
		}
		return strings.TrimSpace(string(out))
	}
	raw, err := exec.Command("sox", path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-").Output()
	if err != nil {
		t.Fatalf("sox %s -t raw: %v", path, err)
	}
	return info("-r"), info("-c"), len(raw) / 2
}

// TestSayWAVReadBySox writes 12 frames of synth:tiny speech to a file and to
// stdout (a stream: unknown-length sizes) and has sox (Debian's, an
// independent reader) check rate, channels and length = frames × 1920.
func TestSayWAVReadBySox(t *testing.T) {
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox not installed (apt-get install -y sox): the WAV is not checked by an independent reader")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "file.wav")
	args := []string{"say", "Hello, world.", "--model", "synth:tiny", "--max-frames", "12", "--min-frames", "12", "--seed", "3", "-q"}
	var stderr bytes.Buffer
	if code := run(append(args, "-o", file), &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("say -o file: exit %d: %s", code, stderr.String())
	}
	var stdout bytes.Buffer
	if code := run(append(args, "-o", "-"), &stdout, &stderr); code != 0 {
		t.Fatalf("say -o -: exit %d: %s", code, stderr.String())
	}
	pipe := filepath.Join(dir, "pipe.wav")
	if err := os.WriteFile(pipe, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, pipe} {
		rate, ch, n := soxSamples(t, p)
		if rate != "24000" || ch != "1" || n != 12*1920 {
			t.Errorf("%s: sox reads rate %s, %s channel(s), %d samples; want 24000, 1, %d", filepath.Base(p), rate, ch, n, 12*1920)
		}
	}
	if _, err := exec.LookPath("ffprobe"); err == nil {
		for _, p := range []string{file, pipe} {
			out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=sample_rate,channels,codec_name", "-of", "csv=p=0", p).Output()
			if got := strings.TrimSpace(string(out)); err != nil || got != "pcm_s16le,24000,1" {
				t.Errorf("%s: ffprobe says %q (%v), want pcm_s16le,24000,1", filepath.Base(p), got, err)
			}
		}
	}
	a, _ := os.ReadFile(file)
	b := stdout.Bytes()
	if len(a) != len(b) || !bytes.Equal(a[44:], b[44:]) {
		t.Errorf("file and pipe output differ past the header (%d and %d bytes)", len(a), len(b))
	}
}

// TestSayRawFormats: --format pcm is the WAV's data, f32 four bytes a sample.
func TestSayRawFormats(t *testing.T) {
	args := []string{"say", "Hi.", "--model", "synth:tiny", "--max-frames", "4", "--min-frames", "4", "--seed", "3", "-q", "-o", "-"}
	var wav, pcm, f32, stderr bytes.Buffer
	for _, c := range []struct {
		buf    *bytes.Buffer
		format string
	}{{&wav, "wav"}, {&pcm, "pcm"}, {&f32, "f32"}} {
		if code := run(append(args, "--format", c.format), c.buf, &stderr); code != 0 {
			t.Fatalf("--format %s: exit %d: %s", c.format, code, stderr.String())
		}
	}
	if !bytes.Equal(wav.Bytes()[44:], pcm.Bytes()) || pcm.Len() != 4*1920*2 || f32.Len() != 4*1920*4 {
		t.Errorf("wav data %d bytes, pcm %d (equal: %v), f32 %d; want pcm = wav data = %d, f32 %d",
			wav.Len()-44, pcm.Len(), bytes.Equal(wav.Bytes()[44:], pcm.Bytes()), f32.Len(), 4*1920*2, 4*1920*4)
	}
}

// TestSayInterrupted sends SIGINT to omni say after its first audio (a long
// stream of synth:tiny): the exit is 130, NAME is not written and
// NAME.partial is a WAV of whole frames of the audio made so far, its sizes
// patched (sox reads the header's length).
func TestSayInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine for about a second")
	}
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox not installed (apt-get install -y sox)")
	}
	out := filepath.Join(t.TempDir(), "part.wav")
	args := []string{"--threads", "1", "say", "A long one.", "--model", "synth:tiny", "--max-frames", "30000", "--max-new-tokens", "30000",
		"--min-frames", "30000", "-o", out}
	stderr := &watchWriter{word: "s of audio", seen: make(chan struct{})}
	go func() {
		<-stderr.seen
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	if code := run(args, &bytes.Buffer{}, stderr); code != exitSignal+int(syscall.SIGINT) {
		t.Fatalf("exit %d, want 130; stderr %s", code, tail(stderr.String()))
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("an interrupted say wrote %s (only %s.partial may hold the partial audio)", out, out)
	}
	out += ".partial"
	rate, ch, n := soxSamples(t, out)
	head, err := exec.Command("sox", "--i", "-s", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	if rate != "24000" || ch != "1" || n == 0 || n%1920 != 0 || n >= 30000*1920 || strings.TrimSpace(string(head)) != strconv.Itoa(n) {
		t.Errorf("partial WAV: rate %s, %s channel(s), %d samples read, header says %s; want 24000, 1, whole frames, header = samples",
			rate, ch, n, strings.TrimSpace(string(head)))
	}
}

// TestSayIsRunThenDecode: omni say of a seeded request writes the very WAV
// that omni run's codes of the same request, decoded by omni decode (the
// codec alone), give.
func TestSayIsRunThenDecode(t *testing.T) {
	dir := t.TempDir()
	req := []string{"--model", "synth:tiny", "--max-frames", "12", "--min-frames", "12", "--seed", "4", "--predictor-seed", "5"}
	said, codes, decoded := filepath.Join(dir, "say.wav"), filepath.Join(dir, "codes.json"), filepath.Join(dir, "decode.wav")
	var stderr bytes.Buffer
	if code := run(append([]string{"say", "Two ways, one sound.", "-q", "-o", said}, req...), &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("say: exit %d: %s", code, stderr.String())
	}
	if code := run(append([]string{"run", "--text", "Two ways, one sound.", "--out", codes}, req...), &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"decode", codes, "-o", decoded}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("decode: exit %d: %s", code, stderr.String())
	}
	a, _ := os.ReadFile(said)
	b, _ := os.ReadFile(decoded)
	if len(a) != 44+2*12*1920 || !bytes.Equal(a, b) {
		t.Fatalf("say wrote %d bytes, run + decode %d: not the same WAV", len(a), len(b))
	}
}

// TestRunText: omni run --text tokenizes with the model's tokenizer (the
// Hugging Face ids of "Hello, world." are 9707, 11, 1879, 13) and takes the
// model type's layout; --text-ids takes ids as given; an unknown speaker is
// refused naming the field.
func TestRunText(t *testing.T) {
	for _, c := range []struct {
		args []string
		ids  []int32
	}{
		{[]string{"--text", "Hello, world.", "--language", "English", "--speaker", "vivian"}, []int32{9707, 11, 1879, 13}},
		{[]string{"--text-ids", "5,6,7"}, []int32{5, 6, 7}},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"run", "--model", "synth:tiny", "--max-frames", "3"}, c.args...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		var f codesFile
		if err := json.Unmarshal(out.Bytes(), &f); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.TextIDs, c.ids) || f.Frames == 0 {
			t.Errorf("%v: text ids %v, %d frames; want %v", c.args, f.TextIDs, f.Frames, c.ids)
		}
	}
	var errb bytes.Buffer
	if code := run([]string{"run", "--model", "synth:tiny", "--text", "Hi.", "--speaker", "nobody"}, &bytes.Buffer{}, &errb); code == 0 || !strings.Contains(errb.String(), "nobody") {
		t.Errorf("unknown speaker: exit %d, %s", code, errb.String())
	}
}

// TestSayEncodedFormats: -o x.flac and -o x.mp3 pick the format by
// extension; ffmpeg (an independent decoder, when installed) decodes the
// FLAC to exactly the pcm samples, and the MP3 starts with an MPEG frame.
func TestSayEncodedFormats(t *testing.T) {
	dir := t.TempDir()
	args := []string{"say", "Hi.", "--model", "synth:tiny", "--max-frames", "4", "--min-frames", "4", "--seed", "3", "-q"}
	var pcm, stderr bytes.Buffer
	if code := run(append(args, "-o", "-", "--format", "pcm"), &pcm, &stderr); code != 0 {
		t.Fatalf("pcm: exit %d: %s", code, stderr.String())
	}
	for _, ext := range []string{"flac", "mp3"} {
		path := filepath.Join(dir, "say."+ext)
		if code := run(append(args, "-o", path), io.Discard, &stderr); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", path, code, stderr.String())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch ext {
		case "flac":
			if !bytes.HasPrefix(b, []byte("fLaC")) {
				t.Fatalf("say.flac starts % x, want fLaC", b[:min(len(b), 4)])
			}
			ffmpeg, err := exec.LookPath("ffmpeg")
			if err != nil {
				t.Log("ffmpeg not installed: FLAC decode not checked")
				continue
			}
			out, err := exec.Command(ffmpeg, "-v", "error", "-i", path, "-f", "s16le", "-").Output()
			if err != nil {
				t.Fatalf("ffmpeg decode: %v", err)
			}
			if !bytes.Equal(out, pcm.Bytes()) {
				t.Errorf("FLAC decodes to %d bytes, differing from the %d pcm bytes", len(out), pcm.Len())
			}
		case "mp3":
			if len(b) < 2 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
				t.Errorf("say.mp3 starts % x, want an MPEG frame sync", b[:min(len(b), 2)])
			}
		}
	}
	if code := run(append(args, "-o", "-", "--format", "ogg"), io.Discard, &stderr); code == 0 {
		t.Errorf("--format ogg accepted")
	}
}
