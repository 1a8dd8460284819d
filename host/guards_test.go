package host

import (
	"testing"
)

// TestNativeAndWASIGuardedIdentical runs a model with outlier channels in
// int8, where the loader keeps some o_proj/down_proj rows in fp32 (guarded
// channels): the guest must load with the host's choice (EngineSpec.Guards)
// and give the native codes.
func TestNativeAndWASIGuardedIdentical(t *testing.T) {
	nat, wsi := openBoth(t, "synth:tiny+outliers", 3)
	g := wsi.(*wasiEngine).rec.guards
	if len(g.Talker) == 0 || len(g.Predictor) == 0 {
		t.Fatalf("synth:tiny+outliers in int8 guards no channels (%+v): the test would not exercise the guest's guards", g)
	}
	reqs := seededRequests(3, 10)
	sameCodes(t, nat, wsi, reqs)
}
