package deploy

import (
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
}

func TestFormatCPURanges(t *testing.T) {
	for _, c := range []struct {
		cpus []int
		want string
	}{
		{[]int{0, 1, 2, 3}, "0-3"}, {[]int{0, 2, 3}, "0,2-3"}, {[]int{7}, "7"}, {[]int{0, 1, 2, 3, 4, 8, 10, 11}, "0-4,8,10-11"}, {nil, ""},
	} {
		if got := FormatCPURanges(c.cpus); got != c.want {
			t.Errorf("FormatCPURanges(%v) = %q, want %q", c.cpus, got, c.want)
		}
	}
}
