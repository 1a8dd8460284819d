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
		Precisions: []string{"fp32", "bf16", "int8", "int8-fp32head", "mixed"},
		NewBackend: func() (predictor.Backend, func()) {
			b := simd.NewBackend(1)
			return b, b.Close
		},
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
