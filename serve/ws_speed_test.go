package serve_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestSpeechStreamWSSpeed: session.config's speed stretches each
// sentence's audio over the WebSocket (the npm ws client): round(n/speed)
// samples, the frames still the engine's; an out-of-range speed is an
// error naming it.
func TestSpeechStreamWSSpeed(t *testing.T) {
	node, dir := wsClient(t)
	_, url := startServer(t, &servetest.Fake{FrameTime: time.Millisecond}, serve.Config{})
	s := runLive(t, node, dir, url, `{"type":"session.config","voice":"vivian","speed":2,"split_granularity":"sentence"}`, "Hello there. Second one here.")
	if len(s.Errors) > 0 || len(s.Sentences) != 2 {
		t.Fatalf("errors %v, %d sentences; want none, 2", s.Errors, len(s.Sentences))
	}
	for _, se := range s.Sentences {
		f := servetest.FramesFor(se.Text)
		if want := 2 * int(math.Round(float64(f*1920)/2)); se.Frames != f || se.Bytes != want {
			t.Errorf("%q at speed 2: %d frames, %d bytes; want %d frames, %d bytes", se.Text, se.Frames, se.Bytes, f, want)
		}
	}
	s = runLive(t, node, dir, url, `{"type":"session.config","speed":9}`, "Hi.")
	if len(s.Errors) == 0 || !strings.Contains(s.Errors[0], "speed") {
		t.Errorf("speed 9: errors %q, want one naming speed", s.Errors)
	}
}
