package speaker

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPortableDeps checks that speaker pulls in none of predictor, simd, host,
// wazero or kong: it is portable (wasip1) and reads safetensors through the
// safetensors package.
func TestPortableDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/omni-tts/omni/speaker").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/omni-tts/omni/predictor", "github.com/omni-tts/omni/simd",
			"github.com/omni-tts/omni/host", "github.com/tetratelabs/wazero", "github.com/alecthomas/kong"} {
			if dep == bad || strings.HasPrefix(dep, bad+"/") {
				t.Errorf("speaker depends on %s", dep)
			}
		}
	}
}
