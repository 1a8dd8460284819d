package bench

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCPUName: the family and model the reports carry are the kernel's
// (/proc/cpuinfo, read here independently of cpuid), so two CPUs a VM
// names alike stay apart in the figures.
func TestCPUName(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo")
	}
	fam := regexp.MustCompile(`(?m)^cpu family\s*:\s*(\d+)`).FindSubmatch(b)
	mod := regexp.MustCompile(`(?m)^model\s*:\s*(\d+)`).FindSubmatch(b)
	if fam == nil || mod == nil {
		t.Skip("/proc/cpuinfo names no family and model (not x86?)")
	}
	want := fmt.Sprintf("family %s, model %s,", fam[1], mod[1])
	if got := CPUName(); !strings.Contains(got, want) {
		t.Errorf("CPUName() = %q, want it to contain %q (from /proc/cpuinfo)", got, want)
	}
}
