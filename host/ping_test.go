package host

import (
	"context"
	"testing"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// newTestVM returns a vm over the embedded guest with a native backend.
func newTestVM(t *testing.T) (*vm, *hostState, *simd.Backend) {
	t.Helper()
	nb := simd.NewBackend(1)
	s := newHostState(nb, nil, 1<<30)
	v, err := newVM(context.Background(), s, vmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.close(context.Background()); nb.Close() })
	return v, s, nb
}

func TestPingAndSelfTest(t *testing.T) {
	v, s, _ := newTestVM(t)
	in, err := v.newInstance(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.discard()
	got, err := in.Ping(40)
	if err != nil {
		t.Fatal(err)
	}
	if want := int32(40 + abi.Version); got != want {
		t.Fatalf("omni_ping(40) = %d, want %d", got, want)
	}
	for _, n := range []int32{1, 7, 64, 129} {
		r, err := in.invoke(in.selftest, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if int32(r) != 0 {
			t.Errorf("omni_selftest(%d) = %d, want 0 (negative: status, positive: wrong row+1)", n, int32(r))
		}
	}
	if n := s.table.count(in.owner); n != 0 {
		t.Errorf("selftest left %d handles live", n)
	}
}
