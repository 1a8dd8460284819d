package engine_test

import (
	"encoding/base64"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/text"
)

// TestEngineLongSSESpeed: a long input at speed 2 over SSE: segment k
// (3 frames each) starts at k·3·0.08/2 s and ends 0.12 s later in the
// stretched audio, and the deltas hold round(frames·1920/2) samples.
func TestEngineLongSSESpeed(t *testing.T) {
	ts := longServer(t, engine.Options{})
	input := longMixed(600)
	segs, err := text.Segments(input, text.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"input":` + jsonString(input) + `,"voice":"vivian","response_format":"pcm","stream_format":"sse","seed":3,"max_new_tokens":3,"speed":2}`
	resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	samples, starts, ends, frames := 0, 0, 0, 0
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, ev := range readSSE(t, resp.Body) {
		switch ev.Name {
		case "speech.segment.start":
			if s := ev.Data["start"].(float64); !near(s, float64(starts)*0.12) {
				t.Errorf("segment %d starts at %g s, want %g", starts, s, float64(starts)*0.12)
			}
			starts++
		case "speech.segment.done":
			ends++
			if e := ev.Data["end"].(float64); !near(e, float64(ends)*0.12) {
				t.Errorf("segment %d ends at %g s, want %g", ends-1, e, float64(ends)*0.12)
			}
			frames += int(ev.Data["frames"].(float64))
		case "speech.audio.delta":
			pcm, err := base64.StdEncoding.DecodeString(ev.Data["audio"].(string))
			if err != nil {
				t.Fatal(err)
			}
			samples += len(pcm) / 2
		}
	}
	if starts != len(segs) || ends != len(segs) || frames != 3*len(segs) || samples != int(math.Round(float64(frames*1920)/2)) {
		t.Fatalf("%d starts, %d ends of %d segments, %d frames, %d samples; want %d frames, %d samples",
			starts, ends, len(segs), frames, samples, 3*len(segs), int(math.Round(float64(frames*1920)/2)))
	}
}
