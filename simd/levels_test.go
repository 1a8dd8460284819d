package simd

import (
	"os"
	"strings"
	"testing"
)

// This file holds the one policy every kernel test and benchmark follows for
// levels: each level runs as a subtest named for it; a level this CPU (or
// this build) lacks, or one above the level OMNI_KERNELS forced, is skipped
// with a message naming it. Nothing here assumes a particular machine: the
// same tests pass on an AVX2-only CPU, an AVX-512 VNNI one and under purego.
// A CI runner that knows its machine can make a missing level fatal instead:
// OMNI_REQUIRE_KERNELS=avx2,avx512vnni turns the skip of a listed level
// into a failure.

// requireEnv names the variable listing the levels that must be tested.
const requireEnv = "OMNI_REQUIRE_KERNELS"

// required reports whether OMNI_REQUIRE_KERNELS lists level l.
func required(l Level) bool {
	for _, s := range strings.Split(os.Getenv(requireEnv), ",") {
		if strings.EqualFold(strings.TrimSpace(s), l.String()) {
			return true
		}
	}
	return false
}

// levelCap returns the fastest level this run tests: the one OMNI_KERNELS
// names (TestMain has already refused a bad value), else the best this CPU has.
func levelCap() Level {
	if v := os.Getenv(KernelsEnv); v != "" {
		if l, err := ParseLevel(v); err == nil {
			return l
		}
	}
	return Best()
}

// levelSkip returns why level l is not tested in this run, naming the level,
// or "" when it is tested.
func levelSkip(l Level) string {
	switch {
	case !Supported(l) && !haveAsm:
		return "level " + l.String() + ": this build has no assembly (purego or not amd64)"
	case !Supported(l):
		return "level " + l.String() + ": this CPU lacks it (best is " + Best().String() + ")"
	case l > levelCap():
		return "level " + l.String() + ": above " + KernelsEnv + "=" + levelCap().String()
	}
	return ""
}

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
