package testvectors

import (
	"path/filepath"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// nativeEnv runs model kinds on the native backend with every precision.
func nativeEnv() *Env {
	return &Env{
		Precisions: []string{"fp32", "int8", "int8-fp32head", "mixed"},
		NewBackend: func() (predictor.Backend, func()) {
			b := simd.NewBackend(1)
			return b, b.Close
		},
	}
}

// TestModelSuites replays the committed predictor and talker suites (written
// by gen/gen_models.py, a PyTorch statement of the formulas) natively.
func TestModelSuites(t *testing.T) {
	for kind, min := range map[string]int{"predictor": 6, "talker": 6} {
		rep, err := Run([]string{filepath.Join("suites", kind)}, Options{Kind: kind}, nativeEnv())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Status != Pass {
				t.Errorf("%s %s: %s", r.Status, r.Name, r.Message)
			}
		}
		if rep.Passed < min || rep.Failed != 0 {
			t.Errorf("%s: %s, want at least %d passes and no failure", kind, rep.Summary(), min)
		}
	}
}

// TestModelCaseWithoutBackendFails checks that a model case never passes
// when no backend is wired in.
func TestModelCaseWithoutBackendFails(t *testing.T) {
	rep, err := Run([]string{filepath.Join("suites", "talker")}, Options{Kind: "talker"}, &Env{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 0 || rep.Failed == 0 {
		t.Errorf("without a backend: %s, want every fp32 case failed", rep.Summary())
	}
}
