package testvectors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodecEncodeCaseFailsOnOtherAudio checks that a codec_encode case whose
// audio is replaced (inline zeros instead of the noise the expectation was
// computed from) fails on a code it names.
func TestCodecEncodeCaseFailsOnOtherAudio(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("suites", "codec_encode")
	const name = "codec_encode_tiny-b_389_noise"
	js, err := os.ReadFile(filepath.Join(src, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Join(src, "models", "tiny-b"))
	s := strings.Replace(string(js), `"models/tiny-b"`, `"`+abs+`"`, 1)
	zeros := "[" + strings.TrimSuffix(strings.Repeat("0,", 389), ",") + "]"
	s2 := strings.Replace(s, `"audio": {
  "tensor": "audio"
 }`, `"audio": `+zeros, 1)
	if s2 == s {
		t.Fatalf("the case's audio field is not in the expected form:\n%s", s)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(s2), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.ReadFile(filepath.Join(src, name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".safetensors"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run([]string{dir}, Options{Kind: "codec_encode"}, nativeEnv())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || !strings.Contains(rep.Results[0].Message, "codebook") {
		t.Errorf("other audio: %s %+v, want the case failed on a code", rep.Summary(), rep.Results)
	}
}
