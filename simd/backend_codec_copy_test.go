package simd

import (
	"strings"
	"testing"
)

// TestCopyKVRefusals checks that CopyKV names a geometry mismatch and a
// handle that is not a window KV state (its copying itself is checked end
// to end in core's TestClonePrefixCut against a one-call decode).
func TestCopyKVRefusals(t *testing.T) {
	b := NewBackend(1)
	defer b.Close()
	a, err := b.NewWindowKV(2, 2, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.NewWindowKV(2, 2, 4, 9)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyKV(a, c); err == nil || !strings.Contains(err.Error(), "geometries differ") {
		t.Errorf("copy across geometries: %v, want a refusal naming the geometries", err)
	}
	if err := b.CopyKV(a, 12345); err == nil {
		t.Error("copy from an unknown handle accepted")
	}
	if err := b.CopyKV(a, a); err != nil {
		t.Errorf("copy onto itself: %v", err)
	}
}
