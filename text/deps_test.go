package text

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPortableDeps checks that text imports the standard library and
// golang.org/x/text only (no omni package: core depends on text's
// interface, never the reverse).
func TestPortableDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/omni-tts/omni/text").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if !strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") || strings.HasPrefix(dep, "golang.org/x/text/") || dep == "github.com/omni-tts/omni/text" {
			continue
		}
		t.Errorf("text depends on %s", dep)
	}
}
