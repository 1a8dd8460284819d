package simd

import (
	"fmt"
	"os"
	"testing"
)

// TestMain applies OMNI_KERNELS before any test runs, so CI can run the
// whole package at a forced fallback level.
func TestMain(m *testing.M) {
	if _, err := InitFromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
