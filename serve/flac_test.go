package serve_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestFLACDecodesToThePCMStream asks for the same speech as flac and as
// pcm: ffmpeg's FLAC decoder (with CRC checks) must give back the pcm
// stream bit for bit, and the reference flac tool must find the stream valid.
// The cases vary the utterance length (up to 141 frames, past the one-byte
// frame-number coding) and the fake's chunk size.
func TestFLACDecodesToThePCMStream(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed; skipping the FLAC decode check")
	}
	for _, c := range []struct {
		input string
		chunk int
	}{
		{"one", 1}, {"one two three four five", 2}, {strings.Repeat("long ", 70), 3},
	} {
		_, url := startServer(t, &servetest.Fake{FramesPerChunk: c.chunk}, serve.Config{})
		get := func(format string) []byte {
			resp := post(t, url, `{"input":"`+c.input+`","response_format":"`+format+`"}`)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s: status %d, %v", format, resp.StatusCode, err)
			}
			return b
		}
		pcm, fl := get("pcm"), get("flac")
		path := filepath.Join(t.TempDir(), "speech.flac")
		if err := os.WriteFile(path, fl, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(ffmpeg, "-v", "error", "-err_detect", "crccheck+bitstream+buffer+explode",
			"-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		dec, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("%q: ffmpeg decode: %v: %s", c.input, err, stderr.String())
		}
		if !bytes.Equal(dec, pcm) {
			n := min(len(dec), len(pcm))
			i := 0
			for i < n && dec[i] == pcm[i] {
				i++
			}
			t.Fatalf("%q: ffmpeg decodes %d bytes, pcm stream has %d; first difference at byte %d", c.input, len(dec), len(pcm), i)
		}
		if len(fl) >= len(pcm) {
			t.Errorf("%q: flac %d bytes is no smaller than pcm %d", c.input, len(fl), len(pcm))
		}
		if flac, err := exec.LookPath("flac"); err == nil {
			if out, err := exec.Command(flac, "-t", "-s", path).CombinedOutput(); err != nil {
				t.Errorf("%q: flac -t: %v\n%s", c.input, err, out)
			}
		}
	}
}
