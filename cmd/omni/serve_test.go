package main

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeFlags checks the flag plumbing of omni serve and omni loadtest.
func TestServeFlags(t *testing.T) {
	cli := parseCLI(t, "serve", "--fake", "--listen", "127.0.0.1:0", "--max-waiting", "3", "--grace", "5s",
		"--model-alias", "tts-1", "--model-alias", "tts-1-hd", "--default-format", "wav", "--instance", "pod-7")
	s := cli.Serve
	if s.Instance != "pod-7" || !s.Fake || s.Listen != "127.0.0.1:0" || s.MaxWaiting != 3 || s.Grace != 5*time.Second ||
		strings.Join(s.ModelAlias, ",") != "tts-1,tts-1-hd" || s.DefaultFormat != "wav" || s.MaxInput != 4096 {
		t.Errorf("serve flags parsed to %+v", s)
	}
	lt := parseCLI(t, "loadtest", "--url", "http://x:1", "-c", "8", "-n", "32", "--rate", "2.5",
		"--mix", "one, two", "--mix", "three").Loadtest
	if lt.URL != "http://x:1" || lt.Concurrency != 8 || lt.Requests != 32 || lt.Rate != 2.5 ||
		len(lt.Mix) != 2 || lt.Mix[0] != "one, two" || lt.Mix[1] != "three" {
		t.Errorf("loadtest flags parsed to %+v", lt)
	}
}

// TestServeWithoutAdapterSaysSo runs omni serve on a model: until the engine
// adapter is wired it must fail with a message that says so, not hang.
func TestServeWithoutAdapterSaysSo(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--listen", "127.0.0.1:0"}, &out, &errb)
	if code != exitError || !strings.Contains(errb.String(), "engine adapter not wired") {
		t.Errorf("omni serve: exit %d, stderr %q; want %d and the adapter message", code, errb.String(), exitError)
	}
}

// TestServeExitsZeroAfterDrain sends SIGTERM to omni serve --fake once it
// listens: it drains and exits 0, as docs/SERVE.md promises, not 143.
func TestServeExitsZeroAfterDrain(t *testing.T) {
	stderr := &watchWriter{word: "listening", seen: make(chan struct{})}
	go func() {
		<-stderr.seen
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	var stdout bytes.Buffer
	code := run([]string{"serve", "--fake", "--listen", "127.0.0.1:0"}, &stdout, stderr)
	if code != exitOK || !strings.Contains(stderr.String(), "drained; exiting") {
		t.Errorf("omni serve after SIGTERM: exit %d, stderr %s; want 0 after a drain", code, tail(stderr.String()))
	}
}
