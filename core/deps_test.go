package core

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPortableDeps checks that core pulls in none of simd, host, wazero or
// kong (ARCHITECTURE.md: core imports the portable packages only).
func TestPortableDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/omni-tts/omni/core").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/omni-tts/omni/simd", "github.com/omni-tts/omni/host", "github.com/tetratelabs/wazero", "github.com/alecthomas/kong"} {
			if dep == bad || strings.HasPrefix(dep, bad+"/") {
				t.Errorf("core depends on %s", dep)
			}
		}
	}
}
