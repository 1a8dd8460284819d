package sched

import (
	"slices"
	"testing"
)

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

func TestSplitCPUsWorkedExamples(t *testing.T) {
	// tests/edge/test_adapt.py and test_auto_profile.py.
	for _, tc := range []struct {
		cpus         []int
		model, codec string
	}{
		{seq(0, 5), "0-3", "4-5"},
		{[]int{7}, "7", "7"},
		{[]int{0, 2, 3, 4}, "0,2-3", "4"},
		{seq(0, 7), "0-4", "5-7"},
		{[]int{4, 5, 6, 7}, "4-6", "7"},
		{[]int{0, 1}, "0", "1"},
	} {
		m, c := SplitCPUs(tc.cpus, ModelShare)
		if FormatCPURanges(m) != tc.model || FormatCPURanges(c) != tc.codec {
			t.Errorf("SplitCPUs(%v) = %q / %q, want %q / %q", tc.cpus, FormatCPURanges(m), FormatCPURanges(c), tc.model, tc.codec)
		}
	}
	if m, c := SplitCPUs(nil, ModelShare); m != nil || c != nil {
		t.Error("SplitCPUs(nil) is not nil, nil")
	}
	if m, c := SplitThreads(16, 0.75); m != 12 || c != 4 {
		t.Errorf("SplitThreads(16, 3/4) = %d + %d, want 12 + 4", m, c)
	}
}

func TestPlanThreadSweep(t *testing.T) {
	// tests/benchmarks/test_cpu_thread_sweep.py.
	m, c, err := PlanThreadSweep(8, 56, 0.75)
	if err != nil || !slices.Equal(m, seq(56, 61)) || !slices.Equal(c, []int{62, 63}) {
		t.Errorf("(8, 56) = %v / %v, %v; want 56..61 / 62,63", m, c, err)
	}
	m, c, err = PlanThreadSweep(2, 0, 0.75)
	if err != nil || !slices.Equal(m, []int{0}) || !slices.Equal(c, []int{1}) {
		t.Errorf("(2, 0) = %v / %v, %v; want [0] / [1]", m, c, err)
	}
	m, c, err = PlanThreadSweep(32, 56, 0.5)
	if err != nil || len(m) != 16 || len(c) != 16 || m[15] >= c[0] {
		t.Errorf("(32, 56, 0.5) = %v / %v, %v; want 16 / 16 disjoint", m, c, err)
	}
	if _, _, err := PlanThreadSweep(1, 0, 0.75); err == nil {
		t.Error("(1, 0) succeeded, want an error")
	}
}

func TestCPURangesRoundTrip(t *testing.T) {
	for _, s := range []string{"0-3", "0,2-3", "7", "0-4,8,10-11"} {
		cpus, err := ParseCPURanges(s)
		if err != nil || FormatCPURanges(cpus) != s {
			t.Errorf("round trip %q → %v → %q (%v)", s, cpus, FormatCPURanges(cpus), err)
		}
	}
	for _, bad := range []string{"a", "3-1", "-2"} {
		if _, err := ParseCPURanges(bad); err == nil {
			t.Errorf("ParseCPURanges(%q) succeeded", bad)
		}
	}
}
