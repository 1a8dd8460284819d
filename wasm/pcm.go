package wasm

import (
	"unsafe"

	"github.com/omni-tts/omni/wasm/abi"
)

// PCMStage hands float32 samples to the host in binary (abi.PCM): Put
// returns the guest offset and length of the samples and keeps them
// reachable (Go's collector does not move objects) until Reset, which the
// session calls when the next command arrives, after the host has copied
// the previous reply's samples out. The samples are not copied.
type PCMStage struct {
	held [][]float32
}

// Put stages pcm for the current reply and returns its reference.
func (p *PCMStage) Put(pcm []float32) abi.PCM {
	if len(pcm) == 0 {
		return abi.PCM{}
	}
	p.held = append(p.held, pcm)
	return abi.PCM{Ptr: uint32(uintptr(unsafe.Pointer(unsafe.SliceData(pcm)))), Len: int32(len(pcm))}
}

// Reset releases every staged buffer (the host has read them).
func (p *PCMStage) Reset() {
	clear(p.held)
	p.held = p.held[:0]
}
