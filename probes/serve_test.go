package probes

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// omni builds the omni binary once per test run into dir.
func omni(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "omni")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/omni-tts/omni/cmd/omni").CombinedOutput()
	if err != nil {
		t.Fatalf("go build omni: %v\n%s", err, out)
	}
	return bin
}

// server is a running omni serve.
type server struct {
	cmd    *exec.Cmd
	addr   string // host:port
	url    string
	stderr *lockedBuffer
	exited chan error
}

// lockedBuffer collects a process's stderr for the failure messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var listening = regexp.MustCompile(`addr=http://(127\.0\.0\.1:[0-9]+)`)

// start runs bin serve with args on a free loopback port and waits for its
// "listening" line.
func start(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	dir := t.TempDir()
	prof := filepath.Join(dir, "profile.json")
	// One batch row, so admission is easy to fill; one model thread.
	if err := os.WriteFile(prof, []byte(`{"base":"edge","max_num_seqs":1,"model_threads":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	all := append([]string{"--threads", "1", "serve", "--model", "synth:tiny", "--listen", "127.0.0.1:0",
		"--deploy-profile", prof, "--stats-dir", dir, "--codec-threads", "1"}, args...)
	cmd := exec.Command(bin, all...)
	pr, pw := io.Pipe()
	s := &server{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = io.MultiWriter(pw, s.stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.exited
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case s.addr = <-found:
	case err := <-s.exited:
		t.Fatalf("omni serve exited before listening: %v\n%s", err, s.stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("omni serve did not listen within 60 s\n%s", s.stderr)
	}
	s.url = "http://" + s.addr
	return s
}

// stop sends SIGTERM and waits (bounded) for the exit status.
func (s *server) stop(t *testing.T, within time.Duration) error {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		return err
	case <-time.After(within):
		s.cmd.Process.Kill()
		t.Fatalf("omni serve still running %v after SIGTERM (a hung drain)\n%s", within, s.stderr)
		return nil
	}
}

// apiError is OpenAI's error body.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// post sends a speech request and returns the status, the body (read to
// its end) and the read error (an aborted stream).
func post(ctx context.Context, url, body string) (int, http.Header, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/audio/speech", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// wantField checks a 400 naming field.
func wantField(t *testing.T, what string, status int, b []byte, field string) {
	t.Helper()
	var e apiError
	json.Unmarshal(b, &e)
	if status != 400 || e.Error.Param == nil || *e.Error.Param != field {
		t.Errorf("%s: status %d %s, want 400 naming %s", what, status, b, field)
	}
}

// rawExchange writes req on a new connection and reads the response.
func rawExchange(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, req)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response to %.40q: %v", req, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
}

// waitIdle polls /metrics until the server holds no request (bounded).
func waitIdle(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			m := string(b)
			if strings.Contains(m, "\nomni_requests_running 0\n") && strings.Contains(m, "\nomni_requests_waiting 0\n") &&
				strings.Contains(m, "\nomni_engine_requests_running 0\n") && strings.Contains(m, "\nomni_engine_requests_waiting 0\n") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server still busy after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const good = `{"input":"Hello there.","voice":"vivian","response_format":"pcm","max_new_tokens":12,"seed":%d}`

// TestHostileServe replays the rows against one live server.
func TestHostileServe(t *testing.T) {
	dir := t.TempDir()
	bin := omni(t, dir)
	s := start(t, bin, "--max-waiting", "1", "--retry-after", "2s", "--read-timeout", "1s",
		"--read-header-timeout", "1s", "--max-connections", "64", "--max-connections-per-client", "16", "--grace", "2s")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("poison refused, good served", func(t *testing.T) {
		for i := range 3 {
			status, _, b, err := post(ctx, s.url, `{"input":"hi","voice":"vivian","repetition_penalty":1e-38}`)
			if err != nil {
				t.Fatal(err)
			}
			wantField(t, "poison", status, b, "repetition_penalty")
			status, _, b, err = post(ctx, s.url, fmt.Sprintf(good, i))
			if err != nil || status != 200 || len(b) == 0 || len(b)%3840 != 0 {
				t.Errorf("good request %d after the poison: status %d, %d bytes, %v", i, status, len(b), err)
			}
		}
		if resp, err := http.Get(s.url + "/healthz"); err != nil || resp.StatusCode != 200 {
			t.Errorf("/healthz after the poison: %v %v", resp, err)
		}
	})

	t.Run("405 with Allow", func(t *testing.T) {
		resp, err := http.Get(s.url + "/v1/audio/speech")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
			t.Errorf("GET /v1/audio/speech: %d Allow %q, want 405 Allow POST", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})

	t.Run("413 before the body", func(t *testing.T) {
		resp, b := rawExchange(t, s.addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n")
		if resp.StatusCode != 413 {
			t.Errorf("Content-Length 10^12: %d %s, want 413", resp.StatusCode, b)
		}
	})

	t.Run("408 on a slow body, no addresses", func(t *testing.T) {
		resp, b := rawExchange(t, s.addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{\"input\":")
		if resp.StatusCode != 408 || bytes.Contains(b, []byte("127.0.0.1")) {
			t.Errorf("slow body: %d %s, want 408 without socket addresses", resp.StatusCode, b)
		}
	})

	t.Run("text that is not text", func(t *testing.T) {
		for _, body := range []string{"{\"input\":\"a\xff\xfeb\",\"voice\":\"vivian\"}", `{"input":"a\ud800b","voice":"vivian"}`, `{"input":"\udfff","voice":"vivian"}`} {
			status, _, b, err := post(ctx, s.url, body)
			if err != nil {
				t.Fatal(err)
			}
			wantField(t, fmt.Sprintf("%q", body), status, b, "input")
		}
	})

	t.Run("max_new_tokens 1", func(t *testing.T) {
		status, _, b, err := post(ctx, s.url, `{"input":"hi","voice":"vivian","max_new_tokens":1}`)
		if err != nil {
			t.Fatal(err)
		}
		wantField(t, "max_new_tokens 1", status, b, "max_new_tokens")
	})

	t.Run("slowloris", func(t *testing.T) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 2 * time.Second}
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range 300 {
			c, err := d.Dial("tcp", s.addr)
			if err != nil {
				break // refused or backlog full: the server is bounding them
			}
			io.WriteString(c, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n")
			conns = append(conns, c)
		}
		if len(conns) == 0 {
			t.Skip("cannot dial from 127.0.0.2")
		}
		// A liveness probe's timeout (Kubernetes' default is 1 s).
		hc := http.Client{Timeout: time.Second}
		resp, err := hc.Get(s.url + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("/healthz under %d slowloris connections: %v %v", len(conns), resp, err)
		}
		resp.Body.Close()
	})

	t.Run("429 past --max-waiting", func(t *testing.T) {
		lctx, lcancel := context.WithCancel(ctx)
		defer lcancel()
		long := `{"input":"A long one that holds the only slot.","voice":"vivian","response_format":"pcm","max_new_tokens":8192,"temperature":0}`
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() { defer wg.Done(); post(lctx, s.url, long) }()
			time.Sleep(300 * time.Millisecond) // the first is admitted before the second queues
		}
		var status int
		var h http.Header
		for range 50 { // until the running one and the waiting one are in place
			status, h, _, _ = post(ctx, s.url, `{"input":"One too many.","voice":"vivian","response_format":"pcm","max_new_tokens":4}`)
			if status == 429 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if status != 429 || h.Get("Retry-After") != "2" {
			t.Errorf("third request: %d Retry-After %q, want 429 and 2", status, h.Get("Retry-After"))
		}
		lcancel()
		wg.Wait()
		waitIdle(t, s.url)
	})

	t.Run("drain aborts cut streams, 503 to queued", func(t *testing.T) {
		waitIdle(t, s.url)
		// Greedy synth:tiny speaks this for over a thousand frames (seconds).
		long := `{"input":"A long one cut by the drain.","voice":"vivian","response_format":"pcm","max_new_tokens":8192,"temperature":0}`
		type result struct {
			status int
			body   []byte
			err    error
		}
		results := make(chan result, 2)
		for range 2 {
			go func() {
				st, _, b, err := post(ctx, s.url, long)
				results <- result{st, b, err}
			}()
			time.Sleep(500 * time.Millisecond)
		}
		if err := s.stop(t, 30*time.Second); err != nil {
			t.Errorf("omni serve exit after the drain: %v\n%s", err, s.stderr)
		}
		// One stream was running (cut: 200 and a truncated body), the other
		// waited for the only slot through the grace (503).
		var cut, refused int
		for range 2 {
			r := <-results
			switch {
			case r.status == 200 && r.err != nil:
				cut++
			case r.status == 503:
				refused++
			default:
				t.Errorf("request during the drain: status %d, %d bytes, read error %v; want a cut 200 or a 503", r.status, len(r.body), r.err)
			}
		}
		if cut != 1 || refused != 1 {
			t.Errorf("drain: %d streams cut, %d queued refused; want 1 and 1", cut, refused)
		}
	})
}

// TestSigtermRightAfterStart: a SIGTERM just after the listening line
// (Drain may run before Serve registered its server) ends the process at
// once with status 0.
func TestSigtermRightAfterStart(t *testing.T) {
	bin := omni(t, t.TempDir())
	s := start(t, bin)
	if err := s.stop(t, 30*time.Second); err != nil {
		t.Errorf("exit after an early SIGTERM: %v\n%s", err, s.stderr)
	}
}
