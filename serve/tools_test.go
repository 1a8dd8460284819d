package serve_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestEncodedAudioWithTools saves the server's streamed wav and mp3 and has
// sox and ffprobe (independent decoders, when installed) read them.
func TestEncodedAudioWithTools(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{})
	input := "one two three four five six seven"
	seconds := float64(servetest.FramesFor(input)) * 0.08
	for _, format := range []string{"wav", "mp3"} {
		resp := post(t, url, `{"input":"`+input+`","response_format":"`+format+`"}`)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: status %d, %v", format, resp.StatusCode, err)
		}
		path := filepath.Join(t.TempDir(), "speech."+format)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if p := os.Getenv("OMNI_KEEP_AUDIO"); p != "" {
			os.WriteFile(filepath.Join(p, "speech."+format), b, 0o644)
		}
		// mp3 pads the last MPEG frame (576 samples, 24 ms) and carries the
		// encoder delay; the ±0.1 s window covers both.
		checkWithTools(t, path, format, seconds)
	}
}
