package engine_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/text"
)

// longServer serves synth:tiny with inputs up to 100,000 characters.
func longServer(t *testing.T, o engine.Options) *httptest.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny", MaxBatch: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	o.Name, o.MaxNewTokens = "omni", 2048
	syn, err := engine.New(e, o)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { defer close(ran); syn.Stopped(e.Run(ctx)) }()
	srv, err := serve.New(syn, serve.Config{MaxInputChars: 100000})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-ran
		e.Close()
	})
	return ts
}

// longMixed returns about n bytes of text in the models' languages.
func longMixed(n int) string {
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

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

// readSSE parses a text/event-stream body into its events.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != nil {
				evs = append(evs, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("SSE data not JSON: %q", line)
			}
		}
	}
	return evs
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestEngineLongSSE: a 20,000-character mixed-language input streams as
// one reply with a start and a done event for every segment text.Segments
// draws, in order, each done after its segment's audio and at the sample
// where the next starts; the capped segments (max_new_tokens 3 each) are
// reported in their events and in omni_segments_total; the audio deltas
// hold exactly the frames the events count.
func TestEngineLongSSE(t *testing.T) {
	ts := longServer(t, engine.Options{})
	input := longMixed(20000)
	segs, err := text.Segments(input, text.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"omni","input":` + jsonString(input) + `,"voice":"vivian","response_format":"pcm","stream_format":"sse","seed":3,"max_new_tokens":3}`
	resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	evs := readSSE(t, resp.Body)
	next, open, samples, frames := 0, false, 0, 0
	done := false
	for _, ev := range evs {
		switch ev.Name {
		case "speech.segment.start":
			if open || int(ev.Data["index"].(float64)) != next || ev.Data["text"] != segs[next].Text || int(ev.Data["total"].(float64)) != len(segs) {
				t.Fatalf("start event %v while expecting segment %d %q (open %v)", ev.Data, next, segs[next].Text, open)
			}
			if s := ev.Data["start"].(float64); s != float64(samples)/24000 {
				t.Errorf("segment %d starts at %g s, audio so far %g s", next, s, float64(samples)/24000)
			}
			open = true
		case "speech.audio.delta":
			if !open {
				t.Fatalf("audio outside a segment after segment %d", next)
			}
			pcm, err := base64.StdEncoding.DecodeString(ev.Data["audio"].(string))
			if err != nil {
				t.Fatal(err)
			}
			samples += len(pcm) / 2
		case "speech.segment.done":
			if !open || int(ev.Data["index"].(float64)) != next {
				t.Fatalf("done event %v while expecting segment %d", ev.Data, next)
			}
			if ev.Data["end_reason"] != "max_tokens" || ev.Data["capped"] != true || ev.Data["frames"].(float64) != 3 || ev.Data["end"].(float64) != float64(samples)/24000 {
				t.Errorf("segment %d done %v, want capped max_tokens after 3 frames at %g s", next, ev.Data, float64(samples)/24000)
			}
			frames += int(ev.Data["frames"].(float64))
			open = false
			next++
		case "speech.audio.done":
			done = true
			if ev.Data["end_reason"] != "max_tokens" || int(ev.Data["frames"].(float64)) != frames {
				t.Errorf("audio.done %v, want max_tokens after %d frames", ev.Data, frames)
			}
		}
	}
	if next != len(segs) || !done || samples != frames*1920 {
		t.Fatalf("%d of %d segments done, audio.done %v, %d samples for %d frames", next, len(segs), done, samples, frames)
	}
	m, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Body.Close()
	mb, _ := io.ReadAll(m.Body)
	if want := fmt.Sprintf("omni_segments_total{reason=\"max_tokens\"} %d\n", len(segs)); !strings.Contains(string(mb), want) {
		t.Errorf("/metrics lacks %q", want)
	}
}

// TestEngineLongWAV: the same input as a WAV response is one WAV: one
// header, then whole frames of samples; a reply bound (MaxReplyFrames)
// ends it at exactly that many frames with end reason max_tokens.
func TestEngineLongWAV(t *testing.T) {
	ts := longServer(t, engine.Options{MaxReplyFrames: 50})
	input := longMixed(20000)
	body := `{"model":"omni","input":` + jsonString(input) + `,"voice":"vivian","response_format":"wav","seed":3,"max_new_tokens":3}`
	resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(b) < 44 || string(b[:4]) != "RIFF" || string(b[36:40]) != "data" {
		t.Fatalf("status %d, %d bytes: not one WAV", resp.StatusCode, len(b))
	}
	if n := (len(b) - 44) / 2; n != 50*1920 || binary.LittleEndian.Uint16(b[22:24]) != 1 {
		t.Errorf("%d samples, want the reply bound's 50 frames = %d", n, 50*1920)
	}
	if got := resp.Trailer.Get("X-Omni-End-Reason"); got != "max_tokens" {
		t.Errorf("end reason trailer %q, want max_tokens", got)
	}
	if got := resp.Trailer.Get("X-Omni-Frames"); got != "50" {
		t.Errorf("frames trailer %q, want 50", got)
	}
}
