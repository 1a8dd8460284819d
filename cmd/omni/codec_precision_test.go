package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/simd"
)

// TestCodecPrecisionFlag: --codec-precision takes per-family specs in any
// spelling the codec accepts (returned in canonical form) and refuses what
// the codec does not know, naming the value, before any model loads.
func TestCodecPrecisionFlag(t *testing.T) {
	for in, want := range map[string]string{
		"fp32":                "fp32",
		"bf16+res=int8":       "bf16+res=int8",
		"res=int8+tconv=int8": "fp32+tconv=int8+res=int8",
		"int8+out=bf16":       "int8+out=bf16",
	} {
		got, err := resolveCodecPrecision(in)
		if err != nil || got != want {
			t.Errorf("resolveCodecPrecision(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := parsePrecisions("auto, res=int8+bf16x"); err == nil {
		t.Errorf("bench codec --precision with a bad spec: %v, want an error", got)
	}
	if got, err := parsePrecisions("auto, fp32+res=int8"); err != nil || len(got) != 2 || got[0] != simd.DefaultCodecPrecision() || got[1] != "fp32+res=int8" {
		t.Errorf("bench codec --precision auto,fp32+res=int8: %v, %v; want [%s fp32+res=int8]", got, err, simd.DefaultCodecPrecision())
	}
	for _, bad := range []string{"bogus", "res=int9", "bf16+res", "bf16+voice=int8"} {
		var out, errb bytes.Buffer
		args := []string{"say", "Hi.", "--model", "synth:tiny", "-q", "-o", filepath.Join(t.TempDir(), "x.wav"), "--codec-precision", bad}
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--codec-precision") {
			t.Errorf("say --codec-precision %s: exit %d, stderr %q; want a refusal naming the flag", bad, code, errb.String())
		}
	}
}
