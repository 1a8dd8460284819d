package main

import (
	"bytes"
	"io"
	"net/http"
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

// TestServeModelSpeaks runs omni serve on synth:tiny (the engine with its
// codec behind the adapter), asks for a WAV as the curl line does,
// and stops the server with SIGTERM: the answer is a WAV of whole frames
// and the command exits 0 after its drain.
func TestServeModelSpeaks(t *testing.T) {
	url, stderr, done := startServe(t, []string{"serve", "--model", "synth:tiny", "--listen", "127.0.0.1:0", "--max-new-tokens", "40", "--grace", "10s"})
	resp, err := http.Post(url+"/v1/audio/speech", "application/json",
		strings.NewReader(`{"model":"omni","input":"Hello","voice":"vivian","response_format":"wav"}`))
	if err != nil {
		t.Fatal(err)
	}
	wav, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(wav) <= 44 || string(wav[:4]) != "RIFF" || (len(wav)-44)%(1920*2) != 0 {
		t.Errorf("speech: status %d, %d bytes (%q…): want a WAV of whole 1920-sample frames", resp.StatusCode, len(wav), wav[:min(len(wav), 12)])
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("omni serve after SIGTERM: exit %d: %s", code, tail(stderr.String()))
		}
	case <-time.After(time.Minute):
		t.Fatal("omni serve did not exit after SIGTERM")
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
