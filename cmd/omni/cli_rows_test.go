package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The CLI rows of the hostile-user probes (issue 24): each is refused with
// a clear message and the usage or error exit code, or ends as a careful
// user expects, and a failure leaves no output file behind.

// wavSizes checks that b is a 16-bit mono 24 kHz WAV whose RIFF and data
// sizes agree with its length, and returns its sample count.
func wavSizes(t *testing.T, b []byte) int {
	t.Helper()
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[36:40]) != "data" || binary.LittleEndian.Uint32(b[24:]) != 24000 {
		t.Fatalf("not a 24 kHz WAV: %d bytes, header % x", len(b), b[:min(44, len(b))])
	}
	data := int(binary.LittleEndian.Uint32(b[40:]))
	if data != len(b)-44 || int(binary.LittleEndian.Uint32(b[4:])) != 36+data {
		t.Fatalf("WAV of %d bytes says data %d, RIFF %d: sizes not patched", len(b), data, binary.LittleEndian.Uint32(b[4:]))
	}
	return data / 2
}

// noFile fails when path or path.partial exists.
func noFile(t *testing.T, what, path string) {
	t.Helper()
	for _, p := range []string{path, path + ".partial"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left %s behind", what, p)
		}
	}
}

// codesJSON returns a codes file of n frames of the tiny synthetic model.
func codesJSON(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"synth:tiny","codes":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]", i%2048)
	}
	b.WriteString("]}")
	return b.Bytes()
}

func TestDecodeRefusesNullsAndEmptyCodes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, msg string }{
		{`{"model":"synth:tiny","codes":[]}`, `the "codes" list is empty`},
		{`{"model":"synth:tiny"}`, `no "codes" list`},
		{`{"model":"synth:tiny","codes":[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15],null]}`, "codes[1] is null"},
		{`{"model":"synth:tiny","codes":[[0,1,2,null,4,5,6,7,8,9,10,11,12,13,14,15]]}`, "codes[0][3] is null"},
		{`{"model":"synth:tiny","codes":[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,2048]]}`, "code 2048"},
	} {
		p, out := filepath.Join(dir, "c.json"), filepath.Join(dir, "x.wav")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		var o, e bytes.Buffer
		if code := run([]string{"decode", p, "-o", out}, &o, &e); code != exitError || !strings.Contains(e.String(), c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.body, code, e.String(), c.msg)
		}
		noFile(t, "a refused decode", out)
	}
}

// TestDecodeInterrupted sends SIGINT to a long decode once the codec is
// loaded: exit 130, no NAME, and NAME.partial a valid WAV of whole frames,
// fewer than asked.
func TestDecodeInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes for up to a few seconds")
	}
	const frames = 20000
	dir := t.TempDir()
	codes, out := filepath.Join(dir, "c.json"), filepath.Join(dir, "long.wav")
	if err := os.WriteFile(codes, codesJSON(frames), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := &watchWriter{word: "loaded", seen: make(chan struct{})}
	go func() {
		<-stderr.seen
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	if code := run([]string{"--threads", "1", "decode", codes, "-o", out, "--chunk", "1"}, &bytes.Buffer{}, stderr); code != exitSignal+int(syscall.SIGINT) {
		t.Fatalf("exit %d, want 130; stderr %s", code, tail(stderr.String()))
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("an interrupted decode wrote %s (only %s.partial may hold the partial WAV)", out, out)
	}
	b, err := os.ReadFile(out + ".partial")
	if err != nil {
		t.Fatal(err)
	}
	if n := wavSizes(t, b); n%1920 != 0 || n >= frames*1920 {
		t.Errorf("partial WAV of %d samples, want whole frames, fewer than %d", n, frames)
	}
	if !strings.Contains(stderr.String(), "interrupted after") || !strings.Contains(stderr.String(), "valid WAV") {
		t.Errorf("stderr does not say the partial file is valid: %s", tail(stderr.String()))
	}
}

func TestSayRefusesBlankAndOverlongText(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.wav")
	blank := filepath.Join(dir, "blank.txt")
	os.WriteFile(blank, []byte(" \n\t "), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"say", "   ", "-o", out}, exitUsage, "the text is empty"},
		{[]string{"say", "-o", out}, exitUsage, "the text is empty"},
		{[]string{"say", "--text-file", blank, "-o", out}, exitError, "holds no text"},
		{[]string{"say", "hi", "--text-file", blank, "-o", out}, exitUsage, "not both"},
	} {
		var o, e bytes.Buffer
		if code := run(c.args, &o, &e); code != c.code || !strings.Contains(e.String(), c.msg) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, e.String(), c.code, c.msg)
		}
		noFile(t, "a refused say", out)
	}

	// 120 KB of text as one request (the argument; --text-file and stdin
	// speak it as segments instead, say_long_test.go), more than the
	// model's context: refused in the user's words, the old file kept.
	long := strings.Repeat("Hello there, world. ", 6000)
	os.WriteFile(out, []byte("old"), 0o644)
	var o, e bytes.Buffer
	code := run([]string{"--threads", "1", "say", long, "--model", "synth:tiny", "-o", out, "-q"}, &o, &e)
	for _, want := range []string{"120000 characters", "positions", "context of 32768", "split the text into parts of at most about"} {
		if code != exitError || !strings.Contains(e.String(), want) {
			t.Errorf("overlong text: exit %d, stderr %q lacks %q", code, e.String(), want)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("a failed say replaced the earlier %s", out)
	}
	if _, err := os.Stat(out + ".partial"); err == nil {
		t.Errorf("a failed say left %s.partial", out)
	}
}

// TestSayReadsStdin speaks a text read from stdin (--text-file -).
func TestSayReadsStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	go func() {
		w.Write([]byte("Read from a pipe.\n"))
		w.Close()
	}()
	out := filepath.Join(t.TempDir(), "stdin.wav")
	var o, e bytes.Buffer
	if code := run([]string{"--threads", "1", "say", "--text-file", "-", "--model", "synth:tiny", "--max-frames", "4", "--min-frames", "4", "-o", out, "-q"}, &o, &e); code != exitOK {
		t.Fatalf("say --text-file -: exit %d: %s", code, e.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := wavSizes(t, b); n != 4*1920 {
		t.Errorf("WAV of %d samples, want 4 frames of 1920", n)
	}
	if _, err := os.Stat(out + ".partial"); err == nil {
		t.Errorf("a whole say left %s.partial", out)
	}
}

func TestRunRefusesEmptyTextIDs(t *testing.T) {
	var o, e bytes.Buffer
	if code := run([]string{"run", "--text-ids", ""}, &o, &e); code != exitUsage || !strings.Contains(e.String(), `--text-ids "" holds no ids`) {
		t.Errorf("run --text-ids \"\": exit %d, stderr %q; want 80 naming the flag", code, e.String())
	}
}

// TestPullRedirectLoop: a hub whose every URL redirects to itself is
// refused at once (no retries) naming the loop and an absolute URL; a HEAD
// answer without an etag names the missing header.
func TestPullRedirectLoop(t *testing.T) {
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	defer loop.Close()
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_TOKEN", "")
	var o, e bytes.Buffer
	code := run([]string{"pull", "Org/Name", "--endpoint", loop.URL}, &o, &e)
	if code != exitError || !strings.Contains(e.String(), "redirect loop") || !strings.Contains(e.String(), "the last to "+loop.URL+"/") || strings.Contains(e.String(), "retry") {
		t.Errorf("redirect loop: exit %d, stderr %q; want 1 at once, naming the loop and %s/…", code, e.String(), loop.URL)
	}

	commit := strings.Repeat("ab", 20)
	noEtag := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/models/") {
			fmt.Fprintf(w, `{"id":"Org/Name","sha":%q,"siblings":[{"rfilename":"config.json","size":2},{"rfilename":"model.safetensors","size":2}]}`, commit)
			return
		}
		w.Header().Set("Content-Length", "2")
		w.WriteHeader(http.StatusOK)
	}))
	defer noEtag.Close()
	o.Reset()
	e.Reset()
	code = run([]string{"pull", "Org/Name", "--endpoint", noEtag.URL}, &o, &e)
	if code != exitError || !strings.Contains(e.String(), "without an ETag or X-Linked-Etag header") || !strings.Contains(e.String(), noEtag.URL+"/Org/Name/resolve/") {
		t.Errorf("HEAD without an etag: exit %d, stderr %q; want 1 naming the header and the URL", code, e.String())
	}
}
