package simd

import (
	"strings"
	"testing"
)

// The level policy itself is levelpolicy.go's (LevelSkip, LevelRequired,
// LevelCap), shared with other packages' tests through simdtest.

// requireEnv names the variable listing the levels that must be tested.
const requireEnv = RequireEnv

// required reports whether OMNI_REQUIRE_KERNELS lists level l.
func required(l Level) bool { return LevelRequired(l) }

// levelCap returns the fastest level this run tests.
func levelCap() Level { return LevelCap() }

// levelSkip returns why level l is not tested in this run, or "".
func levelSkip(l Level) string { return LevelSkip(l) }

// levelRunner is what eachLevel needs of a *testing.T or *testing.B.
type levelRunner[T any] interface {
	testing.TB
	Run(name string, f func(T)) bool
}

// eachLevel runs f as a subtest per level, named for the level, with that
// level active; a level this run does not test is a skipped subtest whose
// message says why (go test -v shows which levels ran).
func eachLevel[T levelRunner[T]](t T, f func(t T)) {
	t.Helper()
	for _, l := range Levels() {
		t.Run(l.String(), func(t T) {
			if why := levelSkip(l); why != "" {
				if required(l) {
					t.Fatalf("%s, but %s requires it", why, requireEnv)
				}
				t.Skip(why)
			}
			defer Use(l)()
			f(t)
		})
	}
}

// TestKernelLevels logs which levels this run tests and why any is skipped,
// so CI output records the machine's coverage (.ci/run runs it with -v). It
// fails on a broken policy (generic must always be tested, and the forced or
// best level must be one this CPU has) and on a skipped level that
// OMNI_REQUIRE_KERNELS lists.
func TestKernelLevels(t *testing.T) {
	var ran, skipped []string
	for _, l := range Levels() {
		if why := levelSkip(l); why != "" {
			skipped = append(skipped, why)
			continue
		}
		ran = append(ran, l.String())
	}
	t.Logf("kernel levels tested: %s", strings.Join(ran, ", "))
	for _, s := range skipped {
		t.Logf("skipped %s", s)
	}
	if levelSkip(Generic) != "" {
		t.Errorf("generic level not tested: %s", levelSkip(Generic))
	}
	if c := levelCap(); !Supported(c) {
		t.Errorf("level cap %s is not supported here", c)
	}
	for _, l := range Levels() {
		if why := levelSkip(l); why != "" && required(l) {
			t.Errorf("%s, but %s requires it", why, requireEnv)
		}
	}
}
