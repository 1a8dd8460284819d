package wasm

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPortableDeps checks that the guest packages (wasm, wasm/abi and the
// reactor, built for wasip1) pull in none of simd, host, wazero or kong.
func TestPortableDeps(t *testing.T) {
	for _, pkg := range []string{"github.com/omni-tts/omni/wasm", "github.com/omni-tts/omni/wasm/abi", "github.com/omni-tts/omni/wasm/guest"} {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("go list unavailable: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, bad := range []string{"github.com/omni-tts/omni/simd", "github.com/omni-tts/omni/host", "github.com/tetratelabs/wazero", "github.com/alecthomas/kong"} {
				if dep == bad || strings.HasPrefix(dep, bad+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
