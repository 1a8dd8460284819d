package wasm

import (
	"testing"
	"unsafe"

	"github.com/omni-tts/omni/wasm/abi"
)

// TestPCMStage checks that a staged buffer is named by its own address and
// length (no copy), that empty audio is the zero reference, and that Reset
// lets go of every buffer.
func TestPCMStage(t *testing.T) {
	var st PCMStage
	a := []float32{1, 2, 3}
	b := make([]float32, 1920)
	ra, rb := st.Put(a), st.Put(b)
	if ra.Len != 3 || uintptr(ra.Ptr) != uintptr(uint32(uintptr(unsafe.Pointer(&a[0])))) {
		t.Errorf("Put(a) = %+v, want a's address and 3", ra)
	}
	if rb.Len != 1920 || uintptr(rb.Ptr) != uintptr(uint32(uintptr(unsafe.Pointer(&b[0])))) {
		t.Errorf("Put(b) = %+v, want b's address and 1920", rb)
	}
	if r := st.Put(nil); r != (abi.PCM{}) {
		t.Errorf("Put(nil) = %+v, want the zero reference", r)
	}
	if len(st.held) != 2 {
		t.Errorf("%d buffers held, want 2", len(st.held))
	}
	st.Reset()
	if len(st.held) != 0 || cap(st.held) < 2 || st.held[:2][0] != nil {
		t.Errorf("after Reset: %d held, references not cleared", len(st.held))
	}
}
