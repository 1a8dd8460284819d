package main

import (
	"strings"
	"testing"
)

// TestCoresLine: the cores line names CPUID's physical count as the
// machine's only when it is not above the logical CPUs the process has
// (a 2-vCPU VM whose hypervisor reports 254 physical cores, seen here).
func TestCoresLine(t *testing.T) {
	for _, c := range []struct {
		logical, physical int
		want, not         string
	}{
		{2, 254, "2 logical CPUs (CPUID reports 254 physical cores", "254 physical cores,"},
		{8, 4, "4 physical cores, 8 logical CPUs", "CPUID"},
		{2, 0, "2 logical CPUs", "physical"},
	} {
		got := coresLine(c.logical, c.physical)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("coresLine(%d, %d) = %q, want it to say %q and not %q", c.logical, c.physical, got, c.want, c.not)
		}
	}
}
