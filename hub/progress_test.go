package hub

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestBarPlainLines(t *testing.T) {
	var out bytes.Buffer
	b := &bar{w: &out, name: "model.safetensors", total: 10 << 20}
	b.resume(0)
	for range 10 {
		b.Write(make([]byte, 1<<20))
	}
	b.done(true)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	// A header, one line at each of 10 % … 90 %, and the done line.
	if len(lines) != 11 || lines[0] != "model.safetensors: 10.0 MiB" {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	for i, l := range lines[1:10] {
		want := regexp.MustCompile(`^model\.safetensors  ` + regexp.QuoteMeta(bytesStr(int64(i+1)<<20)) + ` / 10\.0 MiB  ` +
			regexp.QuoteMeta(string(rune('1'+i))) + `0%  \S+ \S+/s  ETA \S+$`)
		if !want.MatchString(l) {
			t.Errorf("line %d = %q, want %s", i+1, l, want)
		}
	}
	if !regexp.MustCompile(`^model\.safetensors  10\.0 MiB in \S+ \(\S+ \S+/s\), sha256 ok$`).MatchString(lines[10]) {
		t.Errorf("done line %q", lines[10])
	}
	if strings.Contains(out.String(), "\r") {
		t.Error("plain output has carriage returns")
	}
}

func TestBarTerminal(t *testing.T) {
	var out bytes.Buffer
	b := &bar{w: &out, tty: true, name: "x", total: 2 << 20}
	b.resume(0)
	b.Write(make([]byte, 1<<20)) // first update draws at once
	b.done(false)
	s := out.String()
	if !strings.HasPrefix(s, "\rx  1.0 MiB / 2.0 MiB  50%  ") || !strings.HasSuffix(s, ", git sha1 ok\x1b[K\n") || strings.Count(s, "\n") != 1 {
		t.Errorf("terminal output %q: want one redrawn bar line, then the done line", s)
	}
}

func TestBytesStr(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.00 GiB"} {
		if got := bytesStr(n); got != want {
			t.Errorf("bytesStr(%d) = %q, want %q", n, got, want)
		}
	}
}
