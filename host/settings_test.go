package host

import (
	"encoding/json"
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/sched"
)

// TestEngineSettingsCarryAdaptive: the settings the WASI guest receives
// (JSON of a core.Config, decoded by wasm's create) keep the adaptive chunk
// controller the native engine gets from the same Options, and nil stays
// nil (the fixed ramp).
func TestEngineSettingsCarryAdaptive(t *testing.T) {
	a := sched.DefaultAdaptiveConfig()
	a.MinFrames, a.SafetyMarginMS = 4, 120
	for _, in := range []*sched.AdaptiveConfig{&a, nil} {
		o := Options{MaxBatch: 3, Engine: core.Config{Chunks: sched.DefaultFixedRamp(), Adaptive: in}}
		b, err := o.engineSettings()
		if err != nil {
			t.Fatal(err)
		}
		var got core.Config
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		switch {
		case in == nil && got.Adaptive != nil:
			t.Errorf("settings %s: adaptive %+v, want nil", b, *got.Adaptive)
		case in != nil && (got.Adaptive == nil || *got.Adaptive != *in):
			t.Errorf("settings %s: adaptive %+v, want %+v", b, got.Adaptive, *in)
		}
		if got.MaxBatch != 3 {
			t.Errorf("settings %s: max batch %d, want 3", b, got.MaxBatch)
		}
	}
}
