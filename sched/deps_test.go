package sched

import (
	"os/exec"
	"strings"
	"testing"
)

func TestPortableImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".", "../stats").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		// The host-facing deploy code (cpuid, x/sys/cpu, the user config
		// dir, sha1 cache keys) lives in package deploy.
		for _, banned := range []string{"/simd", "/host", "/deploy", "wazero", "kong", "cpuid", "golang.org/x/sys", "crypto/sha1"} {
			if strings.Contains(dep, banned) {
				t.Errorf("sched/stats depend on %s", dep)
			}
		}
	}
}
