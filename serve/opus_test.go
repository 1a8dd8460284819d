package serve_test

import (
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestSpeechOpus: response_format opus answers audio/ogg that ffmpeg
// (libopus's decoder) reads back as exactly the fake's samples in number,
// its 440 Hz tone within 1 %, at speed 1 and at speed 2.
func TestSpeechOpus(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed; skipping the Opus decode check")
	}
	_, url := startServer(t, &servetest.Fake{}, serve.Config{})
	input := "one two three four five six"
	n := servetest.FramesFor(input) * 1920
	for _, c := range []struct {
		speed string
		n     int
	}{{"1", n}, {"2", n / 2}} {
		resp := post(t, url, `{"input":"`+input+`","response_format":"opus","speed":`+c.speed+`}`)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/ogg" {
			t.Fatalf("speed %s: status %d, type %q, %v", c.speed, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
		path := filepath.Join(t.TempDir(), "speech.opus")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		raw, err := exec.Command(ffmpeg, "-v", "error", "-i", path, "-f", "s16le", "-ar", "24000", "-ac", "1", "-").Output()
		if err != nil {
			t.Fatalf("ffmpeg: %v", err)
		}
		pcm := s16(raw)
		if len(pcm) != c.n {
			t.Errorf("speed %s: ffmpeg decodes %d samples, want %d", c.speed, len(pcm), c.n)
		}
		m := len(pcm) / 10
		if hz := risingZeroCrossingsHz(pcm[m : len(pcm)-m]); math.Abs(hz-servetest.ToneHz)/servetest.ToneHz > 0.01 {
			t.Errorf("speed %s: decoded pitch %.2f Hz, want %g", c.speed, hz, servetest.ToneHz)
		}
	}
}
