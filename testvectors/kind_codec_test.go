package testvectors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodecSuite replays the committed codec suite (written by
// gen/codec/gen_codec.py, an independent PyTorch forward) natively.
func TestCodecSuite(t *testing.T) {
	rep, err := Run([]string{filepath.Join("suites", "codec")}, Options{Kind: "codec"}, nativeEnv())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status == Fail {
			t.Errorf("%s %s: %s", r.Status, r.Name, r.Message)
		}
	}
	if rep.Passed < 12 || rep.Failed != 0 {
		t.Errorf("codec: %s, want at least 12 passes and no failure", rep.Summary())
	}
}

// TestCodecCaseFailsOnWrongAudio checks that a codec case with one sample
// moved past its tolerance fails and names the sample.
func TestCodecCaseFailsOnWrongAudio(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("suites", "codec")
	const name = "codec_tiny-b_1_call"
	js, err := os.ReadFile(filepath.Join(src, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	// Same case, its tolerance 0 and its model path pointing back at the suite.
	abs, _ := filepath.Abs(filepath.Join(src, "models", "tiny-b"))
	s := strings.Replace(string(js), `"models/tiny-b"`, `"`+abs+`"`, 1)
	s = strings.Replace(s, `"rtol": 0.0`, `"rtol": 0.0, "min_snr_db": 400`, 1)
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.ReadFile(filepath.Join(src, name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".safetensors"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run([]string{dir}, Options{Kind: "codec"}, nativeEnv())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || !strings.Contains(rep.Results[0].Message, "SNR") {
		t.Errorf("a 400 dB SNR bar: %s %+v, want the case failed on SNR", rep.Summary(), rep.Results)
	}
}
