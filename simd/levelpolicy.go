package simd

import (
	"os"
	"strings"
)

// This file holds the one policy every kernel test and benchmark follows for
// levels, in simd's tests (eachLevel) and in other packages' (simdtest):
// each level runs as a subtest named for it; a level this CPU (or this
// build) lacks, or one above the level OMNI_KERNELS forced, is skipped with a
// message naming it. Nothing here assumes a particular machine: the same
// tests pass on an AVX2-only CPU, an AVX-512 VNNI one and under purego. A CI
// runner that knows its machine can make a missing level fatal instead:
// OMNI_REQUIRE_KERNELS=avx2,avx512vnni turns the skip of a listed level into
// a failure.

// RequireEnv names the variable listing the levels a test run must cover.
const RequireEnv = "OMNI_REQUIRE_KERNELS"

// LevelRequired reports whether OMNI_REQUIRE_KERNELS lists level l.
func LevelRequired(l Level) bool {
	for _, s := range strings.Split(os.Getenv(RequireEnv), ",") {
		if strings.EqualFold(strings.TrimSpace(s), l.String()) {
			return true
		}
	}
	return false
}

// LevelCap returns the fastest level a test run covers: the one
// OMNI_KERNELS names when it names a known level, else the best this CPU
// has.
func LevelCap() Level {
	if v := os.Getenv(KernelsEnv); v != "" {
		if l, err := ParseLevel(v); err == nil {
			return l
		}
	}
	return Best()
}

// LevelSkip returns why a test run does not cover level l, naming the
// level, or "" when it does.
func LevelSkip(l Level) string {
	switch {
	case !Supported(l) && !haveAsm:
		return "level " + l.String() + ": this build has no assembly (purego or not amd64)"
	case !Supported(l):
		return "level " + l.String() + ": this CPU lacks it (best is " + Best().String() + ")"
	case l > LevelCap():
		return "level " + l.String() + ": above " + KernelsEnv + "=" + LevelCap().String()
	}
	return ""
}
