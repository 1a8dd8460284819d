package simd

import (
	"os"
	"testing"
)

// gemmTestLevels returns the levels a kernel test runs: every level up to
// the active one (all of them unless OMNI_KERNELS forced a lower one). A
// level this CPU lacks is an error, not a skip, except in a build without
// assembly where only Generic exists.
func gemmTestLevels(t *testing.T) []Level {
	t.Helper()
	var ls []Level
	for _, l := range Levels() {
		if l > Active() && os.Getenv(KernelsEnv) != "" {
			break
		}
		if !Supported(l) {
			if haveAsm {
				t.Errorf("kernel level %s is not supported on this machine (set %s to a level it has)", l, KernelsEnv)
			}
			continue
		}
		ls = append(ls, l)
	}
	return ls
}
