package portable

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestPortablePackagesStayPortable lists the dependencies of every portable
// package as built for wasip1 and fails on any banned one.
func TestPortablePackagesStayPortable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	if !slices.IsSorted(Packages()) {
		t.Errorf("Packages() %v is not sorted", Packages())
	}
	args := []string{"list", "-deps"}
	for _, p := range Packages() {
		args = append(args, "github.com/omni-tts/omni/"+p+"/...")
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(cmd.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, b := range Banned() {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				t.Errorf("a portable package depends on %s", dep)
			}
		}
	}
}
