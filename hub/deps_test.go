package hub_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPortablePackagesDoNotImportHub: hub is host-side (network, file
// system); the portable core resolves nothing from the hub cache itself.
func TestPortablePackagesDoNotImportHub(t *testing.T) {
	pkgs := []string{"core", "predictor", "sampler", "sched", "stats", "testvectors"}
	args := []string{"list", "-deps"}
	for _, p := range pkgs {
		args = append(args, "github.com/omni-tts/omni/"+p)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/omni-tts/omni/hub" || strings.HasPrefix(dep, "github.com/omni-tts/omni/hub/") {
			t.Errorf("a portable package (%s) depends on %s", strings.Join(pkgs, " "), dep)
		}
	}
}
