package serve_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// batchReply mirrors the batch answer (vLLM-Omni's shape).
type batchReply struct {
	ID      string `json:"id"`
	Results []struct {
		Index     int    `json:"index"`
		Status    string `json:"status"`
		AudioData string `json:"audio_data"`
		MediaType string `json:"media_type"`
		Error     string `json:"error"`
		Frames    int    `json:"frames"`
		EndReason string `json:"end_reason"`
	} `json:"results"`
	Total, Succeeded, Failed int
}

func postBatch(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url+"/v1/audio/speech/batch", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
}

// countingSyn is a Fake that records the most streams open at once.
type countingSyn struct {
	*servetest.Fake
	mu        sync.Mutex
	open, max int
}

func (c *countingSyn) Start(ctx context.Context, req serve.SpeechRequest) (serve.AudioStream, error) {
	st, err := c.Fake.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.open++
	c.max = max(c.max, c.open)
	c.mu.Unlock()
	return &countedStream{AudioStream: st, c: c}, nil
}

type countedStream struct {
	serve.AudioStream
	c    *countingSyn
	once sync.Once
}

func (s *countedStream) Close() error {
	s.once.Do(func() {
		s.c.mu.Lock()
		s.c.open--
		s.c.mu.Unlock()
	})
	return s.AudioStream.Close()
}

// TestSpeechBatch: items answer in order with each one's audio (the fake's
// tone, its frame count a function of its text) in its format, the top
// level's fields as defaults under each item's own; a bad item is an error
// result naming it while the others succeed; the items run as concurrent
// streams, at most 4 at once.
func TestSpeechBatch(t *testing.T) {
	syn := &countingSyn{Fake: &servetest.Fake{FrameTime: 2 * time.Millisecond, Capacity: 8}}
	srv, err := serve.New(syn, serve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	inputs := []string{"one two three four five six seven eight", "a b", "bad voice here", "x y z", "speed two please", "w"}
	body := fmt.Sprintf(`{"response_format":"pcm","voice":"ryan","items":[
		{"input":%q},
		{"input":%q,"response_format":"wav"},
		{"input":%q,"voice":"nobody"},
		{"input":%q,"request_id":"r4"},
		{"input":%q,"speed":2},
		{"input":%q,"voice":"vivian","language":"english"}]}`, inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5])
	resp, b := postBatch(t, ts.URL, body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var rep batchReply
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total != 6 || rep.Succeeded != 5 || rep.Failed != 1 || len(rep.Results) != 6 || !strings.HasPrefix(rep.ID, "speechbatch-") {
		t.Fatalf("id %q, total %d, succeeded %d, failed %d, %d results; want 6, 5, 1", rep.ID, rep.Total, rep.Succeeded, rep.Failed, len(rep.Results))
	}
	for i, r := range rep.Results {
		if r.Index != i {
			t.Errorf("result %d has index %d", i, r.Index)
		}
		n := servetest.FramesFor(inputs[i]) * 1920
		audio, _ := base64.StdEncoding.DecodeString(r.AudioData)
		switch i {
		case 2:
			if r.Status != "error" || !strings.Contains(r.Error, "items[2].voice") || r.AudioData != "" {
				t.Errorf("item 2: %+v; want an error naming items[2].voice", r)
			}
		case 1:
			rate, samples := parseWAV(t, audio)
			if r.Status != "success" || r.MediaType != "audio/wav" || rate != 24000 {
				t.Errorf("item 1: status %s, type %s, rate %d", r.Status, r.MediaType, rate)
			}
			checkSamples(t, "item 1 (wav)", samples, n)
		case 4:
			if got, want := len(audio)/2, int(math.Round(float64(n)/2)); r.Status != "success" || got != want {
				t.Errorf("item 4 at speed 2: %s, %d samples; want %d", r.Status, got, want)
			}
		default:
			if r.Status != "success" || r.MediaType != "audio/pcm" || r.Frames != n/1920 || r.EndReason != "eos" {
				t.Errorf("item %d: %s %s, %d frames, %s; want success audio/pcm, %d frames, eos", i, r.Status, r.MediaType, r.Frames, r.EndReason, n/1920)
			}
			checkSamples(t, fmt.Sprintf("item %d (pcm)", i), s16(audio), n)
		}
	}
	if syn.max < 2 || syn.max > 4 {
		t.Errorf("at most %d streams open at once; want concurrent streams, at most 4", syn.max)
	}
}

// TestSpeechBatchBounds: no items, 33 items, a missing or non-array items,
// streaming fields and a total input past 4 × MaxInputChars are refused
// whole, naming the field.
func TestSpeechBatchBounds(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{MaxInputChars: 10})
	item := `{"input":"hello"}`
	many := strings.TrimSuffix(strings.Repeat(item+",", 33), ",")
	long := strings.TrimSuffix(strings.Repeat(`{"input":"abcdefghij"},`, 5), ",")
	for _, c := range []struct {
		body   string
		status int
		param  string
	}{
		{`{"items":[]}`, 400, "items"},
		{`{"items":[` + many + `]}`, 400, "items"},
		{`{"input":"x"}`, 400, "items"},
		{`{"items":{"input":"x"}}`, 400, "items"},
		{`[1]`, 400, "body"},
		{`{"items":[` + item + `],"stream_format":"sse"}`, 400, "stream_format"},
		{`{"items":[` + long + `]}`, 413, "items"},
	} {
		resp, b := postBatch(t, url, c.body)
		var e errorBody
		_ = json.Unmarshal(b, &e)
		if resp.StatusCode != c.status || e.Error.Param == nil || *e.Error.Param != c.param {
			t.Errorf("%.60s: status %d, %s; want %d naming %s", c.body, resp.StatusCode, b, c.status, c.param)
		}
	}
	// an item over MaxInputChars is that item's error, not the batch's
	resp, b := postBatch(t, url, `{"items":[{"input":"hi"},{"input":"far too long for ten"}],"response_format":"pcm"}`)
	var rep batchReply
	if err := json.Unmarshal(b, &rep); err != nil || resp.StatusCode != 200 || rep.Succeeded != 1 || !strings.Contains(rep.Results[1].Error, "items[1].input") {
		t.Errorf("status %d, %s; want item 0 spoken, item 1 an error naming items[1].input", resp.StatusCode, b)
	}
	if r, _ := http.Get(url + "/v1/audio/speech/batch"); r.StatusCode != 405 || r.Header.Get("Allow") != "POST" {
		t.Errorf("GET: status %d, Allow %q; want 405, POST", r.StatusCode, r.Header.Get("Allow"))
	}
}

// TestSpeechBatchEngine: a batch of three on synth:tiny's engine (with its
// codec): each answer is whole frames of pcm, as many as it reports, in
// order.
func TestSpeechBatchEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("engine batch test skipped in -short mode")
	}
	ts, _ := engineServer(t)
	resp, b := postBatch(t, ts.URL, `{"response_format":"pcm","voice":"vivian","seed":3,"max_new_tokens":8,"items":[
		{"input":"Hello there."},{"input":"A second, longer sentence to speak.","seed":5},{"input":"Third."}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var rep batchReply
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Succeeded != 3 {
		t.Fatalf("%d of 3 succeeded: %s", rep.Succeeded, b)
	}
	for i, r := range rep.Results {
		audio, _ := base64.StdEncoding.DecodeString(r.AudioData)
		if r.Index != i || r.Frames < 1 || r.Frames > 8 || len(audio) != r.Frames*1920*2 {
			t.Errorf("item %d: index %d, %d frames, %d bytes; want 1..8 whole frames of s16", i, r.Index, r.Frames, len(audio))
		}
	}
}

// TestSpeechBatchDrain: a drain whose grace ends mid-batch cancels the
// items still speaking (their KV freed) and answers them as draining errors,
// the batch itself 200 with the finished ones.
func TestSpeechBatchDrain(t *testing.T) {
	fake := &servetest.Fake{FrameTime: 20 * time.Millisecond}
	s, url := startServer(t, fake, serve.Config{})
	type answer struct {
		status int
		body   []byte
	}
	got := make(chan answer, 1)
	go func() {
		resp, b := postBatch(t, url, `{"response_format":"pcm","items":[{"input":"short"},{"input":"`+strings.Repeat("w ", 300)+`"}]}`)
		got <- answer{resp.StatusCode, b}
	}()
	waitFor(t, "the short item to finish, the long one speaking", func() bool {
		return fake.Stats().Completed == 1 && fake.Load().Running == 1
	})
	if err := s.Drain(10 * time.Millisecond); err == nil {
		t.Error("Drain with an item longer than the grace returned nil")
	}
	a := <-got
	var rep batchReply
	if err := json.Unmarshal(a.body, &rep); err != nil || a.status != 200 {
		t.Fatalf("status %d, %s: %v", a.status, a.body, err)
	}
	if rep.Results[0].Status != "success" || rep.Results[1].Status != "error" || !strings.Contains(rep.Results[1].Error, "draining") {
		t.Errorf("results %+v; want the short one spoken, the long one a draining error", rep.Results)
	}
	if st := fake.Stats(); st.Cancelled != 1 || fake.Load().Running != 0 {
		t.Errorf("after drain: %+v, running %d; want the long item cancelled", st, fake.Load().Running)
	}
}

// TestSpeechBatchAudioBound: ten items of 2047 frames of pcm (7.9 MB each)
// pass the batch's 64 MiB bound: at most eight are spoken, the others are
// stopped with an error naming the bound, and every stream is closed.
func TestSpeechBatchAudioBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a 64 MiB batch is skipped in -short mode")
	}
	fake := &servetest.Fake{FramesPerChunk: 64}
	_, url := startServer(t, fake, serve.Config{MaxInputChars: 8192})
	item := `{"input":"` + strings.TrimSpace(strings.Repeat("w ", 1023)) + `"}`
	resp, b := postBatch(t, url, `{"response_format":"pcm","items":[`+strings.TrimSuffix(strings.Repeat(item+",", 10), ",")+`]}`)
	var rep batchReply
	if err := json.Unmarshal(b, &rep); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if rep.Succeeded > 8 || rep.Failed < 2 || rep.Total != 10 {
		t.Errorf("%d succeeded, %d failed of %d; want at most 8 spoken", rep.Succeeded, rep.Failed, rep.Total)
	}
	for i, r := range rep.Results {
		if r.Status == "error" && !strings.Contains(r.Error, "64 MiB") {
			t.Errorf("item %d: error %q, want the batch's audio bound", i, r.Error)
		}
		if r.Status == "success" && r.Frames != 2047 {
			t.Errorf("item %d: %d frames, want 2047", i, r.Frames)
		}
	}
	if st := fake.Stats(); st.Closed != 10 || fake.Load().Running != 0 {
		t.Errorf("fake %+v, running %d; want all 10 closed", st, fake.Load().Running)
	}
}
