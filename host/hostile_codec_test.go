package host

import (
	"context"
	"testing"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// TestHostileCodecGuest runs a guest that calls every codec host function
// with bad pointers, lengths, sizes and handles: each call must come back
// with the status that names the fault (never a trap or a host panic), a
// refused call must change nothing (a host-owned window state stays at
// position 0), and the guest's objects must all be accounted for.
func TestHostileCodecGuest(t *testing.T) {
	mod := buildWasm(t, "./testdata/hostilecodec")
	nb := simd.NewBackend(1)
	defer nb.Close()
	s := newHostState(nb, nil, 1<<30)
	nw, err := nb.NewWindowKV(1, 1, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	hostWin, st := s.table.add(nw, abi.KindWindowKV, [4]int{1, 1, 4, 3}, windowKVBytes(1, 1, 4, 3), ownerHost)
	if st != abi.StatusOK {
		t.Fatal(st)
	}
	other := newHostState(nb, nil, 1<<30)
	for other.table.tag == s.table.tag {
		other.table = newHandleTable()
	}
	foreign, err := (&recorder{s: other}).NewVector([]float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}

	v, err := newVM(context.Background(), s, vmConfig{module: mod})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(context.Background())
	in, err := v.newInstance(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args ...uint64) abi.Status {
		t.Helper()
		r, err := in.mod.ExportedFunction(name).Call(context.Background(), args...)
		if err != nil {
			t.Fatalf("%s trapped: %v", name, err)
		}
		return abi.Status(int32(r[0]))
	}
	if got := call("setup", uint64(hostWin), uint64(foreign)); got != abi.StatusOK {
		t.Fatalf("setup: %v", got)
	}
	cases := []struct {
		name string
		want abi.Status
	}{
		{"good conv", abi.StatusOK},
		{"conv output outside memory", abi.StatusBadPointer},
		{"conv input one short", abi.StatusBadLength},
		{"window kv as conv", abi.StatusWrongKind},
		{"conv of zero rows", abi.StatusBadArgument},
		{"conv rows past the limit", abi.StatusBadArgument},
		{"conv misaligned input", abi.StatusBadPointer},
		{"good transposed conv", abi.StatusOK},
		{"carry of the wrong length", abi.StatusBadLength},
		{"carry outside memory", abi.StatusBadPointer},
		{"depthwise input of the wrong length", abi.StatusBadLength},
		{"good depthwise", abi.StatusOK},
		{"layer norm NaN eps", abi.StatusBadArgument},
		{"layer norm weight and bias widths differ", abi.StatusBadLength},
		{"gelu lengths differ", abi.StatusBadLength},
		{"gelu negative length", abi.StatusBadLength},
		{"conv as snake", abi.StatusWrongKind},
		{"scale with a freed vector", abi.StatusStaleHandle},
		{"attention into a host-owned state", abi.StatusReadOnly},
		{"attention with a foreign state", abi.StatusForeignHandle},
		{"attention at a layer past the state", abi.StatusBadArgument},
		{"attention head width differs from the state", abi.StatusBadArgument},
		{"attention position out of order", abi.StatusBackend},
		{"state list outside memory", abi.StatusBadPointer},
		{"good attention", abi.StatusOK},
		{"reset a host-owned state", abi.StatusReadOnly},
		{"good reset", abi.StatusOK},
		{"unknown conv precision", abi.StatusBadArgument},
		{"conv weights outside memory", abi.StatusBadPointer},
		{"conv bias of the wrong length", abi.StatusBadLength},
		{"transposed conv kernel < stride", abi.StatusBadArgument},
		{"window state beyond budget", abi.StatusBadArgument},
		{"conv result slot outside memory", abi.StatusBadPointer},
		{"snake α of the wrong length", abi.StatusBadLength},
		{"depthwise NaN weights", abi.StatusBackend},
		{"window state of odd head width", abi.StatusBadArgument},
		{"free own conv", abi.StatusOK},
		{"use the freed conv", abi.StatusStaleHandle},
		{"attention NaN rope base", abi.StatusBadArgument},
		{"negative segment count", abi.StatusBadArgument},
		{"conv of negative channels", abi.StatusBadArgument},
	}
	for k, c := range cases {
		if got := call("attack", uint64(k)); got != c.want {
			t.Errorf("case %d (%s): status %d (%v), want %d (%v)", k, c.name, got, got, c.want, c.want)
		}
	}
	if got := call("teardown"); got != abi.StatusOK {
		t.Fatalf("teardown: %v", got)
	}
	if n := s.table.count(in.owner); n != 0 {
		t.Errorf("hostile guest left %d handles of its own live", n)
	}
	if s.used != 0 {
		t.Errorf("hostile guest still charged %d bytes", s.used)
	}
	// The host's state was never written: its next row is still position 0
	// (the backend refuses any other).
	qkv := make([]float32, 12)
	out := make([]float32, 4)
	if err := nb.WindowAttention(out, qkv, 1, []int32{nw}, []int32{0}, 0, 1, 4, 10000); err != nil {
		t.Errorf("host-owned window state after the attacks: %v", err)
	}
	in.discard()
	if s.table.live != 1 {
		t.Errorf("after discard the table holds %d live handles, want the host's state", s.table.live)
	}
}
