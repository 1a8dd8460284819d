package kubernetes

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoKubernetes: the manifest checks are the only users of
// k8s.io and sigs.k8s.io; the omni binary must not link them.
func TestBinaryLinksNoKubernetes(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/omni-tts/omni/cmd/omni").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "k8s.io/") || strings.HasPrefix(dep, "sigs.k8s.io/") {
			t.Errorf("cmd/omni depends on %s", dep)
		}
	}
}
