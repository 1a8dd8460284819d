package abi

import (
	"errors"
	"fmt"
	"testing"
)

func TestStatusRoundTrip(t *testing.T) {
	if StatusOK.Err() != nil {
		t.Fatalf("StatusOK.Err() = %v, want nil", StatusOK.Err())
	}
	seen := map[error]Status{}
	for s := Status(1); s < statusCount; s++ {
		e := s.Err()
		if e == nil {
			t.Fatalf("Status(%d).Err() = nil", s)
		}
		if prev, dup := seen[e]; dup {
			t.Fatalf("Status(%d) and Status(%d) share %v", prev, s, e)
		}
		seen[e] = s
		wrapped := fmt.Errorf("matmul of 3 rows: %w", e)
		if got := Code(wrapped); got != s {
			t.Errorf("Code(%q) = %d, want %d", wrapped, got, s)
		}
		ce := Check("matmul", s)
		if !errors.Is(ce, e) {
			t.Errorf("Check(matmul, %d) = %v, not Is %v", s, ce, e)
		}
	}
	if got := Code(errors.New("something else")); got != StatusInternal {
		t.Errorf("Code(unrelated) = %d, want StatusInternal", got)
	}
	if Code(nil) != StatusOK || Check("x", StatusOK) != nil {
		t.Errorf("nil error must map to StatusOK and back")
	}
	if err := Status(999).Err(); err == nil || errors.Is(err, ErrInternal) {
		t.Errorf("Status(999).Err() = %v, want an unknown-status error", err)
	}
}

func TestOpsWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, op := range Ops() {
		if names[op.Name] {
			t.Errorf("op %s listed twice", op.Name)
		}
		names[op.Name] = true
		if len(op.Params) != len(op.Types) {
			t.Errorf("op %s: %d params, %d types", op.Name, len(op.Params), len(op.Types))
		}
	}
	for _, n := range []string{OpVersion, OpMatMul, OpAttention, OpFree, OpSourceRead} {
		if !names[n] {
			t.Errorf("op %s missing from Ops()", n)
		}
	}
}
