package host

import (
	"context"
	"errors"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// TestPCMReferenceChecks hands the host PCM references a broken or hostile
// guest could put in a reply: each is refused with the error naming the
// fault, nothing is copied, and the instance keeps serving.
func TestPCMReferenceChecks(t *testing.T) {
	nb := simd.NewBackend(1)
	defer nb.Close()
	st := newHostState(nb, nil, 1<<30)
	v, err := newVM(context.Background(), st, vmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(context.Background())
	in, err := v.newInstance(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.discard()
	size := in.mod.Memory().Size()
	for _, c := range []struct {
		name string
		ref  abi.PCM
		want error
	}{
		{"outside memory", abi.PCM{Ptr: 0xfffffff0, Len: 4}, abi.ErrBadPointer},
		{"running past the end", abi.PCM{Ptr: size - 8, Len: 4}, abi.ErrBadPointer},
		{"misaligned", abi.PCM{Ptr: 1026, Len: 4}, abi.ErrBadPointer},
		{"negative length", abi.PCM{Ptr: 1024, Len: -4}, abi.ErrBadLength},
		{"longer than any utterance", abi.PCM{Ptr: 0, Len: maxPCM + 1}, abi.ErrBadLength},
	} {
		got, err := in.pcm(c.ref, nil)
		if !errors.Is(err, c.want) || len(got) != 0 {
			t.Errorf("%s: %d samples, error %v; want none and %v", c.name, len(got), err, c.want)
		}
	}
	if got, err := in.pcm(abi.PCM{Ptr: 1024, Len: 0}, []float32{7}); err != nil || len(got) != 1 {
		t.Errorf("an empty reference: %v, %v; want the destination unchanged", got, err)
	}
	if got, err := in.pcm(abi.PCM{Ptr: 1024, Len: 3}, []float32{7}); err != nil || len(got) != 4 || got[0] != 7 {
		t.Errorf("a good reference: %d samples (%v); want 4 appended after the 7", len(got), err)
	}
	if r, err := in.Ping(1); err != nil || r != 1+abi.Version {
		t.Errorf("after refused references the instance answers %d, %v; want %d", r, err, 1+abi.Version)
	}
}

// TestCodecStreamBytes checks the host's charge for one stream's codec
// state at the real geometry against the worked number (k and v, fp32, 8
// layers × 72 positions × 16 heads × 64, plus 8 next positions) and
// against what the native backend reports for that state.
func TestCodecStreamBytes(t *testing.T) {
	cfg := codec.RealConfig()
	const want = 2*4*8*72*16*64 + 4*8 // 4,718,624
	if got := codecStreamBytes(cfg); got != want {
		t.Errorf("codecStreamBytes(real) = %d, want %d", got, want)
	}
	nb := simd.NewBackend(1)
	defer nb.Close()
	h, err := nb.NewWindowKV(cfg.Layers, cfg.Heads, cfg.HeadDim, cfg.SlidingWindow)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := nb.Bytes(h); err != nil || n != want {
		t.Errorf("native window state of the real geometry: %d bytes (%v), host charges %d", n, err, want)
	}
}
