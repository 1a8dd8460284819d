// Package simdtest runs a test or benchmark of another package at every
// kernel level through simd's one level policy (simd.LevelSkip): each level
// is a subtest named for it, a level this run does not cover is skipped with
// a message naming it, and a skipped level that OMNI_REQUIRE_KERNELS lists
// fails.
package simdtest

import (
	"testing"

	"github.com/omni-tts/omni/simd"
)

// Runner is what EachLevel needs of a *testing.T or *testing.B.
type Runner[T any] interface {
	testing.TB
	Run(name string, f func(T)) bool
}

// EachLevel runs f as a subtest per kernel level, named for the level, with
// that level active (simd.Use); a level this run does not cover is a
// skipped subtest saying why, or a failure when OMNI_REQUIRE_KERNELS lists
// it. Anything whose layout depends on the level (a backend's packed
// weights) should be built inside f.
func EachLevel[T Runner[T]](t T, f func(t T)) {
	t.Helper()
	for _, l := range simd.Levels() {
		t.Run(l.String(), func(t T) {
			if why := simd.LevelSkip(l); why != "" {
				if simd.LevelRequired(l) {
					t.Fatalf("%s, but %s requires it", why, simd.RequireEnv)
				}
				t.Skip(why)
			}
			defer simd.Use(l)()
			f(t)
		})
	}
}
