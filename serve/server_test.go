package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// startServer serves fake with cfg on a loopback port through Server.Serve
// and returns the base URL.
func startServer(t *testing.T, fake *servetest.Fake, cfg serve.Config) (*serve.Server, string) {
	t.Helper()
	s, err := serve.New(fake, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		if !s.Draining() {
			s.Drain(5 * time.Second)
		}
		if err := <-done; err != http.ErrServerClosed {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return s, "http://" + ln.Addr().String()
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// wantTone is the fake's n samples quantised to s16 the way the OpenAI pcm
// format defines it (round(x·32767)), computed here from the tone formula.
func wantTone(n int) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(math.Round(servetest.ToneAmplitude * math.Sin(2*math.Pi*servetest.ToneHz*float64(i)/24000) * 32767))
	}
	return out
}

func checkSamples(t *testing.T, what string, got []int16, wantN int) {
	t.Helper()
	if len(got) != wantN {
		t.Fatalf("%s: %d samples, want %d", what, len(got), wantN)
	}
	want := wantTone(wantN)
	for i := range got {
		if d := int(got[i]) - int(want[i]); d < -1 || d > 1 {
			t.Fatalf("%s: sample %d = %d, want %d", what, i, got[i], want[i])
		}
	}
}

func s16(b []byte) []int16 {
	out := make([]int16, len(b)/2)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// parseWAV reads a canonical 16-bit mono WAV whose sizes may be the
// streaming sentinel 0xFFFFFFFF (data runs to the end).
func parseWAV(t *testing.T, b []byte) (rate int, samples []int16) {
	t.Helper()
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV header: % x", b[:min(len(b), 44)])
	}
	if f := binary.LittleEndian.Uint16(b[20:]); f != 1 {
		t.Fatalf("WAV format %d, want 1 (PCM)", f)
	}
	if ch := binary.LittleEndian.Uint16(b[22:]); ch != 1 {
		t.Fatalf("WAV channels %d, want 1", ch)
	}
	if bits := binary.LittleEndian.Uint16(b[34:]); bits != 16 {
		t.Fatalf("WAV bits %d, want 16", bits)
	}
	size := binary.LittleEndian.Uint32(b[40:])
	data := b[44:]
	if size != 0xFFFFFFFF {
		data = data[:size]
	}
	return int(binary.LittleEndian.Uint32(b[24:])), s16(data)
}

func TestSpeechWAVStream(t *testing.T) {
	fake := &servetest.Fake{}
	_, url := startServer(t, fake, serve.Config{})
	input := "Hello there, how are you today?"
	resp := post(t, url, `{"model":"omni","input":"`+input+`","voice":"vivian","response_format":"wav"}`)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, read err %v: %s", resp.StatusCode, err, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "audio/wav" {
		t.Errorf("Content-Type %q, want audio/wav", ct)
	}
	rate, samples := parseWAV(t, body)
	if rate != 24000 {
		t.Errorf("WAV rate %d, want 24000", rate)
	}
	frames := servetest.FramesFor(input)
	checkSamples(t, "wav", samples, frames*1920)
	if got := resp.Trailer.Get("X-Omni-Frames"); got != fmt.Sprint(frames) {
		t.Errorf("trailer X-Omni-Frames %q, want %d", got, frames)
	}
	if got := resp.Trailer.Get("X-Omni-End-Reason"); got != "eos" {
		t.Errorf("trailer X-Omni-End-Reason %q, want eos", got)
	}
}

func TestSpeechPCMAndFields(t *testing.T) {
	fake := &servetest.Fake{}
	_, url := startServer(t, fake, serve.Config{ModelAliases: []string{"tts-1"}})
	str := func(s string) *string { return &s }
	cases := []struct {
		name, body string
		frames     int
		reason     string
		want       *string // describeRequest of what the synthesizer received
	}{
		{"voice object", `{"model":"tts-1","input":"a b","voice":{"id":"ryan"},"response_format":"pcm"}`, 5, "eos",
			str(`input="a b" voice=ryan instructions="" language="" task_type="" max_new_tokens=0 seed=<nil> temperature=<nil> top_p=<nil> top_k=<nil> repetition_penalty=<nil>`)},
		{"speaker alias, case", `{"input":"a b","speaker":"RYAN","response_format":"pcm"}`, 5, "eos",
			str(`input="a b" voice=ryan instructions="" language="" task_type="" max_new_tokens=0 seed=<nil> temperature=<nil> top_p=<nil> top_k=<nil> repetition_penalty=<nil>`)},
		{"all extras", `{"model":"omni","input":"one two three","voice":"serena","instructions":"whisper","response_format":"pcm","speed":1.0,"stream_format":"audio","language":"english","task_type":"CustomVoice","max_new_tokens":4,"seed":7,"temperature":0.9,"top_p":0.8,"top_k":50,"repetition_penalty":1.05}`, 4, "max_tokens",
			str(`input="one two three" voice=serena instructions="whisper" language="English" task_type="CustomVoice" max_new_tokens=4 seed=7 temperature=0.9 top_p=0.8 top_k=50 repetition_penalty=1.05`)},
		{"language auto, nulls, default voice", `{"input":"x","voice":null,"language":"Auto","seed":null,"temperature":0,"response_format":"pcm"}`, 3, "eos",
			str(`input="x" voice=vivian instructions="" language="" task_type="" max_new_tokens=0 seed=<nil> temperature=0 top_p=<nil> top_k=<nil> repetition_penalty=<nil>`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := post(t, url, c.body)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if c.want != nil {
				if got := describeRequest(fake.LastRequest()); got != *c.want {
					t.Errorf("synthesizer got %s,\nwant %s", got, *c.want)
				}
			}
			if ct := resp.Header.Get("Content-Type"); ct != "audio/pcm" {
				t.Errorf("Content-Type %q, want audio/pcm", ct)
			}
			checkSamples(t, c.name, s16(body), c.frames*1920)
			if got := resp.Trailer.Get("X-Omni-End-Reason"); got != c.reason {
				t.Errorf("end reason %q, want %q", got, c.reason)
			}
		})
	}
}

// describeRequest prints the fields of a SpeechRequest a client controls.
func describeRequest(r serve.SpeechRequest) string {
	opt := func(p any) string {
		switch v := p.(type) {
		case *uint64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *float64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *int:
			if v != nil {
				return fmt.Sprint(*v)
			}
		}
		return "<nil>"
	}
	return fmt.Sprintf("input=%q voice=%s instructions=%q language=%q task_type=%q max_new_tokens=%d seed=%s temperature=%s top_p=%s top_k=%s repetition_penalty=%s",
		r.Input, r.Voice, r.Instructions, r.Language, r.TaskType, r.MaxNewTokens, opt(r.Seed), opt(r.Temperature), opt(r.TopP), opt(r.TopK), opt(r.RepetitionPenalty))
}

func TestSpeechMP3(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{})
	resp := post(t, url, `{"input":"one two three four","voice":"vivian"}`) // mp3 is the default
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/mpeg" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// MPEG audio frame header (ISO 13818-3): 11 sync bits, version 10 =
	// MPEG-2, layer 01 = III; sample-rate index 01 under MPEG-2 = 24000 Hz.
	if len(body) < 4 || body[0] != 0xFF || body[1]&0xE0 != 0xE0 {
		t.Fatalf("no MPEG frame sync at start: % x", body[:min(4, len(body))])
	}
	if v := (body[1] >> 3) & 3; v != 2 {
		t.Errorf("MPEG version bits %b, want 10 (MPEG-2)", v)
	}
	if l := (body[1] >> 1) & 3; l != 1 {
		t.Errorf("layer bits %b, want 01 (layer III)", l)
	}
	if sr := (body[2] >> 2) & 3; sr != 1 {
		t.Errorf("sample-rate index %d, want 1 (24 kHz under MPEG-2)", sr)
	}
	// 9 frames × 1920 samples = 17280 samples = 30 MPEG-2 frames of 576;
	// at 128 kb/s and 24 kHz a frame is 384 bytes.
	if want := 30 * 384; len(body) < want-30 || len(body) > want+30 {
		t.Errorf("mp3 length %d bytes, want about %d (30 frames of 384)", len(body), want)
	}
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

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

func TestSpeechSSE(t *testing.T) {
	for _, body := range []string{
		`{"input":"hello big world","voice":"ryan","response_format":"pcm","stream_format":"sse"}`,
		`{"input":"hello big world","voice":"ryan","response_format":"pcm","stream":true}`,
	} {
		_, url := startServer(t, &servetest.Fake{}, serve.Config{})
		resp := post(t, url, body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%s: status %d, type %q", body, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		evs := readSSE(t, resp.Body)
		resp.Body.Close()
		var pcm []byte
		for i, ev := range evs[:len(evs)-1] {
			if ev.Name != "speech.audio.delta" || ev.Data["type"] != "speech.audio.delta" {
				t.Fatalf("event %d = %v, want speech.audio.delta", i, ev)
			}
			b, err := base64.StdEncoding.DecodeString(ev.Data["audio"].(string))
			if err != nil {
				t.Fatalf("event %d audio not base64: %v", i, err)
			}
			pcm = append(pcm, b...)
		}
		last := evs[len(evs)-1]
		if last.Name != "speech.audio.done" || last.Data["type"] != "speech.audio.done" {
			t.Fatalf("last event %v, want speech.audio.done", last)
		}
		usage := last.Data["usage"].(map[string]any)
		frames := servetest.FramesFor("hello big world")
		if usage["output_tokens"] != float64(frames) || usage["total_tokens"] != usage["input_tokens"].(float64)+float64(frames) {
			t.Errorf("usage %v, want output_tokens %d and total = input + output", usage, frames)
		}
		checkSamples(t, "sse", s16(pcm), frames*1920)
	}
}

// errorBody is OpenAI's error shape, decoded strictly.
type errorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func decodeError(t *testing.T, resp *http.Response) errorBody {
	t.Helper()
	var e errorBody
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("error body %q is not OpenAI's shape: %v", b, err)
	}
	return e
}

func TestSpeechErrors(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{MaxInputChars: 20, MaxBodyBytes: 400})
	long := strings.Repeat("a", 21)
	cases := []struct {
		body   string
		status int
		param  string
	}{
		{`not json`, 400, "body"},
		{`[1,2]`, 400, "body"},
		{`{"input":"x"} {}`, 400, "body"},
		{`{"voice":"vivian"}`, 400, "input"},
		{`{"input":"   "}`, 400, "input"},
		{`{"input":5}`, 400, "input"},
		{`{"input":"x","model":"gpt-4o-mini-tts"}`, 404, "model"},
		{`{"input":"x","model":7}`, 400, "model"},
		{`{"input":"x","voice":"bob"}`, 400, "voice"},
		{`{"input":"x","voice":{"name":"x"}}`, 400, "voice"},
		{`{"input":"x","speaker":"bob"}`, 400, "speaker"},
		{`{"input":"x","response_format":"aac"}`, 400, "response_format"},
		{`{"input":"x","response_format":"ogg"}`, 400, "response_format"},
		{`{"input":"x","speed":4.5}`, 400, "speed"},
		{`{"input":"x","speed":0.2}`, 400, "speed"},
		{`{"input":"x","speed":"fast"}`, 400, "speed"},
		{`{"input":"x","stream_format":"chunks"}`, 400, "stream_format"},
		{`{"input":"x","stream":"yes"}`, 400, "stream"},
		{`{"input":"x","language":"Klingon"}`, 400, "language"},
		{`{"input":"x","task_type":"Base"}`, 400, "task_type"},
		{`{"input":"x","task_type":"Sing"}`, 400, "task_type"},
		{`{"input":"x","max_new_tokens":0}`, 400, "max_new_tokens"},
		{`{"input":"x","max_new_tokens":1.5}`, 400, "max_new_tokens"},
		{`{"input":"x","max_new_tokens":99999}`, 400, "max_new_tokens"},
		{`{"input":"x","seed":-1}`, 400, "seed"},
		{`{"input":"x","temperature":-0.1}`, 400, "temperature"},
		{`{"input":"x","top_p":0}`, 400, "top_p"},
		{`{"input":"x","top_p":1.01}`, 400, "top_p"},
		{`{"input":"x","top_k":-2}`, 400, "top_k"},
		{`{"input":"x","repetition_penalty":0}`, 400, "repetition_penalty"},
		{`{"input":"x","ref_audio":"file:///etc/passwd"}`, 400, "ref_audio"},
		{`{"input":"` + long + `"}`, 413, "input"},
		{`{"input":"x","instructions":"` + long + `"}`, 413, "instructions"},
		{`{"input":"x","pad":"` + strings.Repeat("p", 400) + `"}`, 413, "body"},
	}
	for _, c := range cases {
		resp := post(t, url, c.body)
		if resp.StatusCode != c.status {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Errorf("%s: status %d, want %d: %s", c.body, resp.StatusCode, c.status, b)
			continue
		}
		e := decodeError(t, resp)
		if e.Error.Param == nil || *e.Error.Param != c.param {
			t.Errorf("%s: param %v, want %q (message %q)", c.body, e.Error.Param, c.param, e.Error.Message)
		}
		if !strings.Contains(e.Error.Message, c.param) {
			t.Errorf("%s: message %q does not name %q", c.body, e.Error.Message, c.param)
		}
	}
}

func TestInstructionsRefusedWhereModelTakesNone(t *testing.T) {
	info := servetest.DefaultInfo()
	info.Instructions = false
	_, url := startServer(t, &servetest.Fake{Model: info}, serve.Config{})
	resp := post(t, url, `{"input":"x","instructions":"happy"}`)
	if resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
	if e := decodeError(t, resp); e.Error.Param == nil || *e.Error.Param != "instructions" {
		t.Errorf("param %v, want instructions", e.Error.Param)
	}
}

// waitFor polls cond until it holds, failing after 10 s. It orders events
// between goroutines; it asserts no timing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAdmissionQueueBound(t *testing.T) {
	fake := &servetest.Fake{Capacity: 1, FrameTime: 50 * time.Millisecond}
	_, url := startServer(t, fake, serve.Config{MaxWaiting: 1, RetryAfter: 3 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/audio/speech",
			strings.NewReader(`{"input":"`+strings.Repeat("w ", 200)+`","response_format":"pcm"}`))
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	open() // runs
	waitFor(t, "first stream running", func() bool { return fake.Load().Running == 1 })
	open() // waits inside Start
	waitFor(t, "second request waiting", func() bool { return fake.Load().Waiting == 1 })
	resp := post(t, url, `{"input":"x"}`)
	if resp.StatusCode != 429 {
		t.Fatalf("third request: status %d, want 429", resp.StatusCode)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "3" {
		t.Errorf("Retry-After %q, want 3", ra)
	}
	decodeError(t, resp)
	metrics := scrape(t, url)
	for _, want := range []string{"omni_requests_running 1", "omni_requests_waiting 1",
		`omni_admissions_refused_total{reason="queue_full"} 1`, "omni_kv_cache_bytes 1.048576e+06", "omni_kv_cache_budget_bytes 1.048576e+06"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	cancel()
	waitFor(t, "streams closed", func() bool { return fake.Load().Running == 0 && fake.Load().Waiting == 0 })
}

func TestAdmissionRefusedByEngine(t *testing.T) {
	fake := &servetest.Fake{Capacity: 1, RefuseWhenFull: true, FrameTime: 50 * time.Millisecond}
	_, url := startServer(t, fake, serve.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/audio/speech", strings.NewReader(`{"input":"`+strings.Repeat("w ", 200)+`"}`))
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	waitFor(t, "first stream running", func() bool { return fake.Load().Running == 1 })
	resp := post(t, url, `{"input":"x"}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d Retry-After %q, want 429 and 2 (the engine's hint)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	decodeError(t, resp)
	if m := scrape(t, url); !strings.Contains(m, `omni_admissions_refused_total{reason="capacity"} 1`) {
		t.Errorf("/metrics does not count the capacity refusal")
	}
}

func TestDisconnectCancelsStream(t *testing.T) {
	for _, format := range []string{"audio", "sse"} {
		t.Run(format, func(t *testing.T) {
			fake := &servetest.Fake{FrameTime: 20 * time.Millisecond}
			_, url := startServer(t, fake, serve.Config{})
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/audio/speech",
				strings.NewReader(`{"input":"`+strings.Repeat("w ", 500)+`","response_format":"pcm","stream_format":"`+format+`"}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("POST: %v", err)
			}
			if _, err := io.ReadFull(resp.Body, make([]byte, 100)); err != nil {
				t.Fatalf("read the first bytes: %v", err)
			}
			cancel()
			resp.Body.Close()
			waitFor(t, "stream cancelled on the server", func() bool {
				st := fake.Stats()
				return st.Cancelled == 1 && fake.Load().Running == 0 && fake.Load().KVBytesInUse == 0
			})
			if m := scrape(t, url); !strings.Contains(m, `omni_requests_finished_total{reason="cancelled"} 1`) || !strings.Contains(m, "omni_requests_running 0\n") {
				t.Errorf("/metrics does not show the cancelled stream ended")
			}
		})
	}
}

func TestEngineErrors(t *testing.T) {
	// Before any audio: a proper 500 in OpenAI's shape.
	_, url := startServer(t, &servetest.Fake{FailBeforeAudio: true}, serve.Config{})
	resp := post(t, url, `{"input":"x y z"}`)
	if resp.StatusCode != 500 {
		t.Fatalf("status %d, want 500", resp.StatusCode)
	}
	decodeError(t, resp)

	// Mid-stream, SSE: a speech.audio.error event instead of done.
	_, url = startServer(t, &servetest.Fake{FailAfterChunks: 2}, serve.Config{})
	resp = post(t, url, `{"input":"a b c d e f g","response_format":"pcm","stream_format":"sse"}`)
	evs := readSSE(t, resp.Body)
	resp.Body.Close()
	last := evs[len(evs)-1]
	if last.Name != "speech.audio.error" || last.Data["error"] == nil || len(evs) != 3 {
		t.Fatalf("events %v: want 2 deltas then speech.audio.error", evs)
	}

	// Mid-stream, raw: the body ends in an error, not a clean EOF.
	resp = post(t, url, `{"input":"a b c d e f g","response_format":"pcm"}`)
	_, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Fatalf("raw stream with an engine failure read to a clean EOF")
	}
}

func TestDrain(t *testing.T) {
	fake := &servetest.Fake{FrameTime: 10 * time.Millisecond}
	s, url := startServer(t, fake, serve.Config{})
	if resp, _ := http.Get(url + "/readyz"); resp.StatusCode != 200 {
		t.Fatalf("/readyz %d before drain, want 200", resp.StatusCode)
	}
	input := strings.Repeat("w ", 20)
	resp := post(t, url, `{"input":"`+input+`","response_format":"pcm"}`)
	if _, err := io.ReadFull(resp.Body, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	drained := make(chan error, 1)
	go func() { drained <- s.Drain(30 * time.Second) }()
	waitFor(t, "draining", s.Draining)
	// The listener closes during drain only after the streams end; until
	// then new requests on new connections get 503.
	r2, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(`{"input":"x"}`))
	if err == nil {
		if r2.StatusCode != 503 {
			t.Errorf("request during drain: status %d, want 503", r2.StatusCode)
		}
		decodeError(t, r2)
		if rz, err := http.Get(url + "/readyz"); err == nil && rz.StatusCode != 503 {
			t.Errorf("/readyz %d while draining, want 503", rz.StatusCode)
		}
	}
	rest, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("in-flight stream cut by drain: %v", err)
	}
	if got, want := (len(rest)+2)/2, servetest.FramesFor(input)*1920; got != want {
		t.Errorf("in-flight stream delivered %d samples, want %d", got, want)
	}
	if err := <-drained; err != nil {
		t.Errorf("Drain: %v", err)
	}
}

func TestDrainGraceCancels(t *testing.T) {
	fake := &servetest.Fake{FrameTime: 50 * time.Millisecond}
	s, url := startServer(t, fake, serve.Config{})
	resp := post(t, url, `{"input":"`+strings.Repeat("w ", 500)+`","response_format":"pcm"}`)
	defer resp.Body.Close()
	if _, err := io.ReadFull(resp.Body, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(10 * time.Millisecond); err == nil {
		t.Errorf("Drain with a stream longer than the grace returned nil, want an error")
	}
	if st := fake.Stats(); st.Cancelled != 1 || fake.Load().Running != 0 {
		t.Errorf("after drain: %+v, running %d; want the stream cancelled", st, fake.Load().Running)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(b)
}

func TestMetricsAfterSpeech(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{Version: "v9"})
	input := "one two three"
	resp := post(t, url, `{"input":"`+input+`","response_format":"pcm"}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	frames := servetest.FramesFor(input)
	m := scrape(t, url)
	for _, want := range []string{
		fmt.Sprintf("omni_audio_frames_total %d", frames),
		fmt.Sprintf("omni_audio_seconds_total %g", float64(frames)*0.08),
		fmt.Sprintf("omni_output_tokens_total %d", frames),
		"omni_time_to_first_audio_seconds_count 1",
		"omni_request_rtf_count 1",
		`omni_requests_finished_total{reason="eos"} 1`,
		`omni_step_seconds_total{phase="talker"}`,
		`omni_build_info{goversion=`,
		"omni_requests_running 0",
		"omni_requests_waiting 0",
		`omni_http_requests_total{code="200",handler="speech"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestListings(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{})
	get := func(path string, v any) int {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if v != nil {
			if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		return resp.StatusCode
	}
	var voices struct {
		Voices   []string `json:"voices"`
		Speakers []struct{ Name string }
	}
	if get("/v1/audio/voices", &voices); strings.Join(voices.Voices, ",") != "vivian,ryan,serena" || len(voices.Speakers) != 3 {
		t.Errorf("/v1/audio/voices = %+v", voices)
	}
	var models struct {
		Object string
		Data   []struct {
			ID, Object   string
			Languages    []string
			Instructions bool
		}
	}
	if get("/v1/models", &models); models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != "omni" ||
		models.Data[0].Languages[0] != "Auto" || !models.Data[0].Instructions {
		t.Errorf("/v1/models = %+v", models)
	}
	if c := get("/v1/models/nope", nil); c != 404 {
		t.Errorf("/v1/models/nope status %d, want 404", c)
	}
	if c := get("/healthz", nil); c != 200 {
		t.Errorf("/healthz status %d", c)
	}
	if c := get("/v1/nothing", nil); c != 404 {
		t.Errorf("/v1/nothing status %d", c)
	}
}

// TestKeepAliveAfterStream sends an error-answered request on the same TCP
// connection as a finished stream, after the stream's last per-write
// deadline has passed: the next answer on the connection must still go out
// (net/http clears the write deadline after each request; this holds the
// per-write deadlines to that). A raw connection, because http.Transport
// would quietly retry on a new one.
func TestKeepAliveAfterStream(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{WriteTimeout: 20 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	send := func(body string) *http.Response {
		req, _ := http.NewRequest("POST", url+"/v1/audio/speech", strings.NewReader(body))
		if err := req.Write(conn); err != nil {
			t.Fatalf("write request: %v", err)
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("read response to %s: %v", body, err)
		}
		return resp
	}
	resp := send(`{"input":"a b","response_format":"pcm"}`)
	b, err := io.ReadAll(resp.Body)
	if err != nil || len(b) != 5*1920*2 {
		t.Fatalf("stream: %d bytes, %v; want %d", len(b), err, 5*1920*2)
	}
	time.Sleep(50 * time.Millisecond) // past the stream's last write deadline
	resp = send(`{"input":"a b","speed":5}`)
	if resp.StatusCode != 400 {
		t.Errorf("second request: status %d, want 400", resp.StatusCode)
	}
	decodeError(t, resp)
}

// TestStalledReaderDropped opens a stream far larger than the socket
// buffers and never reads it: once a write blocks past WriteTimeout the
// server drops the client and cancels its stream, freeing its KV.
func TestStalledReaderDropped(t *testing.T) {
	info := servetest.DefaultInfo()
	info.MaxNewTokens = 1 << 20
	fake := &servetest.Fake{Model: info, FramesPerChunk: 25}
	_, url := startServer(t, fake, serve.Config{WriteTimeout: 200 * time.Millisecond, MaxInputChars: 1 << 20})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 20000 words: 40001 frames, 150 MB of pcm.
	body := `{"input":"` + strings.Repeat("w ", 20000) + `","response_format":"pcm"}`
	req, _ := http.NewRequest("POST", url+"/v1/audio/speech", strings.NewReader(body))
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stalled stream to be cancelled", func() bool {
		return fake.Stats().Cancelled == 1 && fake.Load().Running == 0
	})
}

// TestReadTimeoutDoesNotCutStreams streams for longer than ReadTimeout: the
// read deadline is lifted once the body is read, so the stream completes.
func TestReadTimeoutDoesNotCutStreams(t *testing.T) {
	fake := &servetest.Fake{FrameTime: 10 * time.Millisecond}
	_, url := startServer(t, fake, serve.Config{ReadTimeout: 100 * time.Millisecond})
	input := strings.Repeat("w ", 30) // 61 frames, about 0.6 s of generation
	resp := post(t, url, `{"input":"`+input+`","response_format":"pcm"}`)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(b) != servetest.FramesFor(input)*1920*2 {
		t.Fatalf("stream longer than ReadTimeout: %d bytes, %v; want %d", len(b), err, servetest.FramesFor(input)*1920*2)
	}
}

// TestInstanceHeader checks that Config.Instance names the replica on every
// answer (a stream, an error, a probe) and that no header is sent without it.
func TestInstanceHeader(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{Instance: "replica-a"})
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/audio/speech", `{"model":"omni","input":"hi there","voice":"vivian","response_format":"pcm"}`},
		{"POST", "/v1/audio/speech", `{"model":"omni","input":"","voice":"vivian"}`},
		{"GET", "/readyz", ""},
		{"GET", "/metrics", ""},
	} {
		req, _ := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("X-Omni-Instance"); got != "replica-a" {
			t.Errorf("%s %s (status %d): X-Omni-Instance %q, want replica-a", c.method, c.path, resp.StatusCode, got)
		}
	}
	_, bare := startServer(t, &servetest.Fake{}, serve.Config{})
	resp, err := http.Get(bare + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, ok := resp.Header["X-Omni-Instance"]; ok {
		t.Errorf("no Instance configured: X-Omni-Instance %q sent", got)
	}
}
