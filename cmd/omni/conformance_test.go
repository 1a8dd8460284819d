package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConformanceExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"conformance", "../../testvectors/suites", "--kind", "sampler"}, &out, &errb)
	if code != 0 {
		t.Fatalf("conformance on the committed sampler suite exited %d: %s%s", code, out.String(), errb.String())
	}
	if !strings.HasSuffix(strings.TrimSpace(out.String()), " passed, 0 failed") {
		t.Errorf("last line of %q, want N passed, 0 failed", out.String())
	}

	dir := t.TempDir()
	bad := `{"kind": "sampler", "name": "bad", "vocab": 2,
 "requests": [{"params": {"temperature": 0}, "prompt_token_ids": [], "output_token_ids": []}],
 "steps": [{"logits": [[0.0, 1.0]], "expect_tokens": [0]}]}`
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"conformance", dir}, &out, &errb); code != exitConformance {
		t.Fatalf("conformance with a failing case exited %d, want %d", code, exitConformance)
	}
	if s := out.String(); !strings.Contains(s, "FAIL bad: ") || !strings.Contains(s, "0 passed, 1 failed") {
		t.Errorf("output %q lacks the FAIL line or the summary", s)
	}
	out.Reset()
	if code := run([]string{"conformance", dir, "--json"}, &out, &errb); code != exitConformance || !strings.Contains(out.String(), `"failed": 1`) {
		t.Errorf("--json exited %d with %q", code, out.String())
	}
}

// TestConformanceKindsFromTheRegistry: --kind takes every kind the runner
// knows (text and prompt included) and refuses another with the usage code.
func TestConformanceKindsFromTheRegistry(t *testing.T) {
	for _, kind := range []string{"text", "prompt"} {
		var out, errb bytes.Buffer
		if code := run([]string{"conformance", "../../testvectors/suites/" + kind, "--kind", kind}, &out, &errb); code != exitOK ||
			!strings.HasSuffix(strings.TrimSpace(out.String()), " 0 failed") || strings.HasPrefix(strings.TrimSpace(out.String()), "0 passed") {
			t.Errorf("--kind %s: exit %d, %s%s", kind, code, tail(out.String()), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"conformance", "../../testvectors/suites", "--kind", "bogus"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "text, prompt, codec") {
		t.Errorf("--kind bogus: exit %d, stderr %q; want 80 listing the known kinds", code, errb.String())
	}
}

// TestConformanceWASMReadsModelsOutsideTheSuite replays the frame suite,
// whose cases name ../models/tiny (outside the suite directory), inside the
// WASI guest: the model directories the cases name are mounted read-only.
func TestConformanceWASMReadsModelsOutsideTheSuite(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"--threads", "1", "conformance", "--wasm", "--kind", "frame", "../../testvectors/suites/frame"}, &out, &errb)
	s := strings.TrimSpace(out.String())
	if code != exitOK || !strings.HasSuffix(s, " 0 failed") || strings.Contains(s, "0 passed") {
		t.Errorf("--wasm frame suite: exit %d, %s%s", code, tail(s), errb.String())
	}
}
