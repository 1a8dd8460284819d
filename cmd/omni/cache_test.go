package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/simd"
)

// TestMain keeps the prepared-weights cache of every command a test runs
// in a temporary directory (never the user's), unless the test names one.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "omni-cmd-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("OMNI_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestCacheCommands: a say with --cache-dir writes the talker's and the
// codec's files; cache ls lists them as valid with what they hold; a
// damaged file is listed invalid and prune removes it alone; rm --all
// empties the directory.
func TestCacheCommands(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := run([]string{"say", "--model", "synth:tiny", "--max-new-tokens", "2", "--cache-dir", dir, "-q", "-o", filepath.Join(t.TempDir(), "a.wav"), "Hi."}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("say: exit %d: %s", code, stderr.String())
	}
	ls := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := run(append([]string{"cache", "ls", "--cache-dir", dir}, args...), &out, &errb); code != 0 {
			t.Fatalf("cache ls: exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	out := ls()
	if strings.Count(out, " yes ") != 2 || !strings.Contains(out, "talker and code predictor of synth:tiny in int8") || !strings.Contains(out, "codec of synth:tiny in "+simd.DefaultCodecPrecision()) {
		t.Fatalf("cache ls after a first say:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-codec-*.owc"))
	if len(files) != 1 {
		t.Fatalf("codec files %v", files)
	}
	b, _ := os.ReadFile(files[0])
	b[len(b)/2] ^= 1
	os.WriteFile(files[0], b, 0o644)
	if out := ls("--verify"); !strings.Contains(out, "no: wcache:") || !strings.Contains(out, "checksum") {
		t.Fatalf("cache ls --verify of a damaged file:\n%s", out)
	}
	var pout bytes.Buffer
	if code := run([]string{"cache", "prune", "--verify", "--cache-dir", dir}, &pout, &stderr); code != 0 {
		t.Fatalf("cache prune: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(pout.String(), "removed "+filepath.Base(files[0])) || strings.Count(pout.String(), "removed") != 1 {
		t.Fatalf("cache prune removed:\n%s", pout.String())
	}
	if code := run([]string{"cache", "rm", "--cache-dir", dir, "../etc"}, &bytes.Buffer{}, &bytes.Buffer{}); code == 0 {
		t.Fatal("cache rm of a path outside the cache succeeded")
	}
	if code := run([]string{"cache", "rm", "--all", "--cache-dir", dir}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("cache rm --all: exit %d: %s", code, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d entries left after rm --all", len(ents))
	}
}
