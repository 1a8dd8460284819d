package serve_test

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// risingZeroCrossingsHz estimates a tone's frequency from its rising zero
// crossings (interpolated between samples), from samples at 24 kHz.
func risingZeroCrossingsHz(x []int16) float64 {
	var first, last float64
	n := 0
	for i := 1; i < len(x); i++ {
		a, b := float64(x[i-1]), float64(x[i])
		if a < 0 && b >= 0 {
			t := float64(i-1) + a/(a-b)
			if n == 0 {
				first = t
			}
			last = t
			n++
		}
	}
	if n < 2 {
		return 0
	}
	return float64(n-1) * 24000 / (last - first)
}

// TestSpeechSpeed: "speed" stretches the fake's 440 Hz tone to
// round(n/speed) samples and keeps its pitch within 1 %; speed 1 is the
// unstretched answer byte for byte; SSE usage still counts the engine's
// frames.
func TestSpeechSpeed(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{})
	input := "one two three four five six seven eight nine ten"
	n := servetest.FramesFor(input) * 1920
	get := func(body string) []byte {
		t.Helper()
		resp := post(t, url, body)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: status %d, %v: %s", body, resp.StatusCode, err, b)
		}
		return b
	}
	plain := get(`{"input":"` + input + `","response_format":"pcm"}`)
	if one := get(`{"input":"` + input + `","response_format":"pcm","speed":1.0}`); !slices.Equal(one, plain) {
		t.Error("speed 1.0 changed the audio")
	}
	for _, speed := range []float64{0.25, 0.8, 2, 4} {
		pcm := s16(get(fmt.Sprintf(`{"input":%q,"response_format":"pcm","speed":%g}`, input, speed)))
		if want := int(math.Round(float64(n) / speed)); len(pcm) != want {
			t.Errorf("speed %g: %d samples, want round(%d/%g) = %d", speed, len(pcm), n, speed, want)
		}
		m := len(pcm) / 10
		if hz := risingZeroCrossingsHz(pcm[m : len(pcm)-m]); math.Abs(hz-servetest.ToneHz)/servetest.ToneHz > 0.01 {
			t.Errorf("speed %g: pitch %.2f Hz, want %g within 1 %%", speed, hz, servetest.ToneHz)
		}
	}

	resp := post(t, url, `{"input":"`+input+`","response_format":"pcm","stream_format":"sse","speed":2}`)
	evs := readSSE(t, resp.Body)
	resp.Body.Close()
	last := evs[len(evs)-1]
	if last.Name != "speech.audio.done" {
		t.Fatalf("last SSE event %q", last.Name)
	}
	frames := last.Data["frames"]
	usage, _ := last.Data["usage"].(map[string]any)
	if f := float64(servetest.FramesFor(input)); frames != f || usage["output_tokens"] != f {
		t.Errorf("SSE at speed 2: frames %v, usage %v; want the engine's %g frames", frames, usage, f)
	}
}

// TestSpeechSpeedRefused: speeds outside [0.25, 4] and non-numbers are a
// 400 naming "speed".
func TestSpeechSpeedRefused(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{FrameTime: time.Millisecond}, serve.Config{})
	for _, v := range []string{"0.2", "4.01", "0", "-1", `"2"`, "true"} {
		resp := post(t, url, `{"input":"x","speed":`+v+`}`)
		e := decodeError(t, resp)
		if resp.StatusCode != 400 || e.Error.Param == nil || *e.Error.Param != "speed" || !strings.Contains(e.Error.Message, "speed") {
			t.Errorf("speed %s: status %d, param %v, message %q; want 400 naming speed", v, resp.StatusCode, e.Error.Param, e.Error.Message)
		}
	}
}
