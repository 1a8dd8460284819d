package bench

import (
	"fmt"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// CPUName describes the CPU a report was measured on: its brand string and
// its family, model and stepping, which tell apart CPUs a virtual machine
// names alike ("AMD EPYC" is a Zen 4 at family 25 and a Zen 5 at 26, with
// half and full 512-bit rates).
func CPUName() string {
	c := &cpuid.CPU
	return fmt.Sprintf("%s (family %d, model %d, stepping %d)", strings.TrimSpace(c.BrandName), c.Family, c.Model, c.Stepping)
}
