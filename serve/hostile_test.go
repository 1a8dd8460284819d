package serve_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestServeLinksNoEngine: serve and servetest import neither the engine's
// host package nor wazero (go list -deps), so the HTTP layer can be linked
// and tested without the 7.9 MB guest.
func TestServeLinksNoEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("go list in -short mode")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/omni-tts/omni/serve", "github.com/omni-tts/omni/serve/servetest").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/omni-tts/omni/host" || dep == "github.com/omni-tts/omni/core" ||
			strings.HasPrefix(dep, "github.com/tetratelabs/wazero") {
			t.Errorf("serve links %s", dep)
		}
	}
}

// TestDrainAbortsAtGrace: a stream still running when the grace runs out is
// aborted (a raw body is cut off, an SSE stream ends with
// speech.audio.error), never ended cleanly; a request still waiting for
// admission is answered 503 before any header.
func TestDrainAbortsAtGrace(t *testing.T) {
	fake := &servetest.Fake{Capacity: 2, FrameTime: 20 * time.Millisecond}
	s, url := startServer(t, fake, serve.Config{})
	long := strings.Repeat("w ", 500)
	raw := post(t, url, `{"input":"`+long+`","response_format":"pcm"}`)
	defer raw.Body.Close()
	sse := post(t, url, `{"input":"`+long+`","response_format":"pcm","stream_format":"sse"}`)
	defer sse.Body.Close()
	if _, err := io.ReadFull(raw.Body, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	queued := make(chan *http.Response, 1)
	go func() {
		resp, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(`{"input":"queued"}`))
		if err != nil {
			t.Errorf("queued request: %v", err)
		}
		queued <- resp
	}()
	waitFor(t, "a request waiting", func() bool { return fake.Load().Waiting == 1 })
	if err := s.Drain(50 * time.Millisecond); err == nil {
		t.Errorf("Drain cutting streams returned nil, want an error")
	}
	if _, err := io.ReadAll(raw.Body); err == nil {
		t.Errorf("raw stream cut by the drain read to a clean end")
	}
	evs := readSSE(t, sse.Body)
	if last := evs[len(evs)-1]; last.Name != "speech.audio.error" {
		t.Errorf("SSE stream cut by the drain ended with %q, want speech.audio.error", last.Name)
	}
	if resp := <-queued; resp != nil {
		if resp.StatusCode != 503 {
			t.Errorf("request queued at the end of the grace: status %d, want 503", resp.StatusCode)
		}
		resp.Body.Close()
	}
}

// TestDrainBeforeServe: a SIGTERM right after start can run Drain before
// Serve registers its http.Server; Serve must then return at once.
func TestDrainBeforeServe(t *testing.T) {
	s, err := serve.New(&servetest.Fake{}, serve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(time.Second); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve after Drain: %v, want http.ErrServerClosed", err)
		}
	case <-time.After(10 * time.Second):
		ln.Close()
		t.Fatal("Serve after Drain did not return")
	}
}

// TestEngineStopped: once the synthesizer reports its engine stopped,
// /healthz and /readyz answer 503, a request waiting for admission and
// every new one get 503, and a running raw stream is cut off.
func TestEngineStopped(t *testing.T) {
	fake := &servetest.Fake{Capacity: 1, FrameTime: 20 * time.Millisecond}
	_, url := startServer(t, fake, serve.Config{})
	running := post(t, url, `{"input":"`+strings.Repeat("w ", 500)+`","response_format":"pcm"}`)
	defer running.Body.Close()
	waitFor(t, "one stream running", func() bool { return fake.Load().Running == 1 })
	waiting := make(chan *http.Response, 1)
	go func() {
		resp, _ := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(`{"input":"x"}`))
		waiting <- resp
	}()
	waitFor(t, "one waiting", func() bool { return fake.Load().Waiting == 1 })
	fake.Stop()
	if resp := <-waiting; resp == nil || resp.StatusCode != 503 {
		t.Errorf("waiting request after the engine stopped: %v, want 503", resp)
	} else {
		if e := decodeError(t, resp); e.Error.Code == nil || *e.Error.Code != "engine_unavailable" {
			t.Errorf("waiting request: code %v, want engine_unavailable", e.Error.Code)
		}
	}
	if _, err := io.ReadAll(running.Body); err == nil {
		t.Errorf("running raw stream read to a clean end after the engine stopped")
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(url + path)
		if err != nil || resp.StatusCode != 503 {
			t.Errorf("%s: %v %v, want 503", path, resp, err)
		}
	}
	if resp := post(t, url, `{"input":"x"}`); resp.StatusCode != 503 {
		t.Errorf("new request: status %d, want 503", resp.StatusCode)
	}
}

// rawHTTP sends req on a fresh connection and returns the status line and
// the response (headers and body as read until the server closes or 5 s).
func rawHTTP(t *testing.T, addr, req string, pause time.Duration, more string) (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	if pause > 0 {
		time.Sleep(pause)
		io.WriteString(c, more)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read response to %q: %v", req[:min(len(req), 60)], err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Status, resp.Header.Get("Allow") + "|" + string(b)
}

// TestHostileRequests: the answers a careful client expects to malformed
// or abusive requests.
func TestHostileRequests(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{ReadTimeout: 300 * time.Millisecond})
	addr := strings.TrimPrefix(url, "http://")

	// A Content-Length past the cap: 413 before a byte of the body.
	status, body := rawHTTP(t, addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n", 0, "")
	if !strings.HasPrefix(status, "413") || !strings.Contains(body, "body_too_large") {
		t.Errorf("huge Content-Length: %s %s, want 413 body_too_large", status, body)
	}

	// A body that never arrives: 408 naming the body, no socket address.
	status, body = rawHTTP(t, addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"input\":", 0, "")
	if !strings.HasPrefix(status, "408") || strings.Contains(body, "127.0.0.1") {
		t.Errorf("slow body: %s %s, want 408 without addresses", status, body)
	}

	// Wrong methods: 405 with Allow.
	for path, allow := range map[string]string{"/v1/audio/speech": "POST", "/v1/models": "GET", "/v1/audio/voices": "GET, POST",
		"/v1/audio/voices/me": "DELETE"} {
		method := "GET"
		switch allow {
		case "GET":
			method = "POST"
		case "GET, POST":
			method = "PUT"
		}
		req, _ := http.NewRequest(method, url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != allow {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %s", method, path, resp.StatusCode, resp.Header.Get("Allow"), allow)
		}
	}

	// Text that is not text, refused naming the field (raw bytes, before
	// encoding/json turns them into U+FFFD).
	for _, c := range []struct{ body, field string }{
		{"{\"input\":\"a\xffb\"}", "input"},
		{`{"input":"a\ud800b"}`, "input"},
		{`{"input":"a\udc00"}`, "input"},
		{`{"input":"hi","instructions":"\ud83d"}`, "instructions"},
		{`{"input":"ok \\ud800 is text"}`, ""},      // an escaped backslash, then "ud800"
		{`{"input":"smile \ud83d\ude00 fine"}`, ""}, // a proper pair
		{`{"input":"hi","repetition_penalty":1e-38}`, "repetition_penalty"},
		{`{"input":"hi","repetition_penalty":0.009}`, "repetition_penalty"},
		{`{"input":"hi","repetition_penalty":0.01}`, ""},
	} {
		resp := post(t, url, c.body)
		if c.field == "" {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%q: status %d, want 200", c.body, resp.StatusCode)
			}
			continue
		}
		e := decodeError(t, resp)
		if resp.StatusCode != 400 || e.Error.Param == nil || *e.Error.Param != c.field {
			t.Errorf("%q: status %d param %v (%s), want 400 naming %s", c.body, resp.StatusCode, e.Error.Param, e.Error.Message, c.field)
		}
	}
}

// TestPerClientConnectionCap: one address holding its share of the slots
// with trickled headers (slowloris) gets 429 for more, and another address
// is still served at once; the trickling connections are dropped at the
// header timeout.
func TestPerClientConnectionCap(t *testing.T) {
	_, url := startServer(t, &servetest.Fake{}, serve.Config{MaxConnections: 8, MaxConnectionsPerClient: 4, ReadHeaderTimeout: 2 * time.Second})
	addr := strings.TrimPrefix(url, "http://")
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 4 {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Skipf("cannot dial from 127.0.0.2: %v", err)
		}
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n") // never finished
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond) // let the server accept them
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 429 {
		t.Fatalf("fifth connection from one address: %v %v, want 429", resp, err)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "too_many_connections") {
		t.Errorf("429 body %q", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/healthz", nil)
	h, err := http.DefaultClient.Do(req)
	if err != nil || h.StatusCode != 200 {
		t.Fatalf("/healthz from another address while one holds its cap: %v %v", h, err)
	}
	h.Body.Close()
	// The header timeout drops the trickling ones.
	conns[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(conns[0]); err != nil && !strings.Contains(fmt.Sprint(err), "reset") {
		t.Errorf("slowloris connection: %v, want closed by the server", err)
	}
}
