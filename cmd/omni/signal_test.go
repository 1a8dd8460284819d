package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRunInterrupted sends SIGINT to omni run after its first chunk of a
// long stream (30000 frames of synth:tiny, many seconds): the stream ends
// cancelled, --out holds valid JSON of the frames made so far marked
// partial, the step-stats directory is gone and the exit is 130, in both
// modes.
func TestRunInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine for about a second per mode")
	}
	for _, mode := range []string{"native", "wasi"} {
		dir := t.TempDir()
		out := filepath.Join(dir, "codes.json")
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp) // where the step-stats directory goes
		args := []string{"--threads", "1", "run", "--model", "synth:tiny", "--max-frames", "30000", "--max-new-tokens", "30000",
			"--min-frames", "30000", "--out", out}
		if mode == "wasi" {
			args = append(args, "--wasm")
		}
		// Interrupt once the first chunk is logged: frames exist by then.
		stderr := &watchWriter{word: "chunk", seen: make(chan struct{})}
		go func() {
			<-stderr.seen
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}()
		var stdout bytes.Buffer
		code := run(args, &stdout, stderr)
		if code != exitSignal+int(syscall.SIGINT) {
			t.Fatalf("%s: exit %d, want 130; stderr %s", mode, code, tail(stderr.String()))
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var f codesFile
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: --out is not JSON: %v", mode, err)
		}
		if !f.Partial || f.End != "cancelled" || f.Frames != len(f.Codes) || f.Frames == 0 || f.Frames >= 30000 || f.Mode != mode {
			t.Errorf("%s: partial %v, end %q, %d frames, %d codes, mode %q; want partial, cancelled, 0 < frames = codes < 30000",
				mode, f.Partial, f.End, f.Frames, len(f.Codes), f.Mode)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: %s left in the temporary directory", mode, left[0].Name())
		}
		if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
			t.Errorf("%s: temporary %s.partial left behind (%v)", mode, out, err)
		}
	}
}

// TestPanicIsABug: a panic in a command is reported as a bug with exit 70,
// never 2 (a conformance failure).
func TestPanicIsABug(t *testing.T) {
	err := guard(func() error { panic("boom") })
	if !isPanic(err) || !strings.Contains(err.Error(), "BUG: panic: boom") {
		t.Fatalf("guard(panic) = %v", err)
	}
	if c := err.(exitCoder).ExitCode(); c != exitBug || c == exitConformance {
		t.Errorf("panic exit code %d, want %d", c, exitBug)
	}
}

// watchWriter collects what is written and closes seen the first time
// word appears in it.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	word string
	seen chan struct{}
	once sync.Once
}

// Write implements io.Writer.
func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Contains(p, []byte(w.word)) {
		w.once.Do(func() { close(w.seen) })
	}
	return w.buf.Write(p)
}

// String returns what was written.
func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// tail returns the last lines of s.
func tail(s string) string {
	if i := len(s) - 2000; i > 0 {
		return s[i:]
	}
	return s
}

// startServe runs omni with args (a serve command listening on port 0) on a
// goroutine, waits until it listens and returns its address, its stderr
// and the channel its exit code arrives on; it fails the test if the
// server exits or does not listen within 2 minutes.
func startServe(t *testing.T, args []string) (url string, stderr *watchWriter, done chan int) {
	t.Helper()
	stderr = &watchWriter{word: "listening", seen: make(chan struct{})}
	done = make(chan int, 1)
	go func() { done <- run(args, io.Discard, stderr) }()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("omni serve exited %d before listening: %s", code, tail(stderr.String()))
	case <-time.After(2 * time.Minute):
		t.Fatalf("omni serve did not listen: %s", tail(stderr.String()))
	}
	m := regexp.MustCompile(`addr=(http://[0-9.:]+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %s", tail(stderr.String()))
	}
	return m[1], stderr, done
}
