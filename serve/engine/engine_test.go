package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
)

// engineServer serves synth:tiny's engine (with its codec) through the
// adapter; the engine runs until the test ends.
func engineServer(t *testing.T) (*httptest.Server, host.Engine) {
	t.Helper()
	r := startEngine(t, 2, serve.Config{})
	return r.ts, r.e
}

// running is a served engine whose loop the test may stop.
type running struct {
	ts      *httptest.Server
	e       host.Engine
	syn     *engine.Synthesizer
	stopRun func() // ends the engine loop (without Stopped)
}

// startEngine serves synth:tiny with batch rows through the adapter with
// cfg; the engine loop reports its end to the adapter as cmd/omni does,
// unless the test stopped it.
func startEngine(t *testing.T, batch int, cfg serve.Config) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny", MaxBatch: batch, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	syn, err := engine.New(e, engine.Options{Name: "omni", MaxNewTokens: 2048})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		err := e.Run(runCtx)
		if ctx.Err() == nil && runCtx.Err() == nil {
			syn.Stopped(err)
		}
	}()
	srv, err := serve.New(syn, cfg)
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
	return &running{ts: ts, e: e, syn: syn, stopRun: func() { stopRun(); <-ran }}
}

// TestEngineSpeechPCM: a pcm request through the real engine answers 200
// with whole frames of s16le audio, exactly max_new_tokens frames when the
// seeded request runs to its cap, and the same bytes again for the same
// seed; the engine holds no KV afterwards.
func TestEngineSpeechPCM(t *testing.T) {
	ts, e := engineServer(t)
	body := `{"model":"omni","input":"Hello, world.","voice":"vivian","response_format":"pcm","seed":7,"max_new_tokens":12}`
	get := func() []byte {
		resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		return b
	}
	a := get()
	if len(a) == 0 || len(a)%(serve.SamplesPerFrame*2) != 0 || len(a) > 12*serve.SamplesPerFrame*2 {
		t.Fatalf("pcm of %d bytes: want whole frames of 1920 s16 samples, at most 12", len(a))
	}
	if b := get(); !bytes.Equal(a, b) {
		t.Errorf("the same seeded request gave different audio (%d vs %d bytes)", len(a), len(b))
	}
	nonzero := false
	for i := 0; i+1 < len(a); i += 2 {
		if int16(binary.LittleEndian.Uint16(a[i:])) != 0 {
			nonzero = true
			break
		}
	}
	if !nonzero {
		t.Error("the audio is all zeros")
	}
	waitIdle(t, e)
}

// TestEngineSpeechRefusals: the engine's refusals reach the client in
// OpenAI's error shape naming the field.
func TestEngineSpeechRefusals(t *testing.T) {
	ts, _ := engineServer(t)
	for _, c := range []struct {
		body   string
		status int
		param  string
	}{
		{`{"model":"omni","input":"","voice":"vivian"}`, 400, "input"},
		{`{"model":"omni","input":"Hi","voice":"nobody"}`, 400, "voice"},
		{`{"model":"omni","input":"Hi","voice":"vivian","language":"klingon"}`, 400, "language"},
		{`{"model":"nope","input":"Hi","voice":"vivian"}`, 404, "model"},
	} {
		resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != c.status || e.Error.Param == nil || *e.Error.Param != c.param {
			t.Errorf("%s: status %d param %v (%s), want %d naming %s", c.body, resp.StatusCode, e.Error.Param, e.Error.Message, c.status, c.param)
		}
	}
}

// TestEngineDisconnectFreesKV: a client that hangs up mid-stream cancels
// its request, and the engine's KV and decoder state are released.
func TestEngineDisconnectFreesKV(t *testing.T) {
	ts, e := engineServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/audio/speech",
		strings.NewReader(`{"model":"omni","input":"A long sentence to speak.","voice":"vivian","response_format":"pcm","max_new_tokens":2048}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1920*2)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatalf("first audio: %v", err)
	}
	cancel()
	resp.Body.Close()
	waitIdle(t, e)
	m, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Body.Close()
	text, _ := io.ReadAll(m.Body)
	if !strings.Contains(string(text), `omni_step_seconds_total{phase="prefill"}`) {
		t.Errorf("no prefill time attributed:\n%s", grepLines(string(text), "omni_step_seconds_total"))
	}
	if !strings.Contains(string(text), `omni_requests_finished_total{reason="cancelled"} 1`) {
		t.Errorf("the hung-up stream was not counted as cancelled:\n%s", grepLines(string(text), "omni_requests_finished_total"))
	}
}

// grepLines returns the lines of s that contain word.
func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// waitIdle waits (bounded) until the engine holds no stream, KV or decoder.
func waitIdle(t *testing.T, e host.Engine) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := e.Load()
		if err == nil && l.Running == 0 && l.Waiting == 0 && l.KVBytes == 0 && l.Decoders == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("engine still busy: %+v (%v)", l, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
