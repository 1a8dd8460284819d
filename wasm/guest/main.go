//go:build wasip1

// Command guest is omni's control core as a WASI reactor
// (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared): package host
// embeds the built module and drives it through the exports below, named in
// package abi. The heavy kernels are host functions (module omni).
package main

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/omni-tts/omni/wasm"
	"github.com/omni-tts/omni/wasm/abi"
)

func main() {}

// The reactor's state lives here because exports are plain functions: the
// session, the command buffer the host fills and the last reply (kept
// reachable so the host can read it).
var (
	sess  = wasm.NewSession()
	in    []byte
	reply []byte

	spinSink uint64 // written by FaultSpin so the loop is not optimised away
)

// addr returns the guest offset of b's first byte (0 when empty).
func addr(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// omniAlloc returns the offset of a command buffer of at least n bytes,
// valid until the next omni_alloc; 0 if n is out of range.
//
//go:wasmexport omni_alloc
func omniAlloc(n int32) int32 {
	if n < 1 || n > 1<<30 {
		return 0
	}
	if cap(in) < int(n) {
		in = make([]byte, n)
	}
	in = in[:cap(in)]
	return int32(addr(in))
}

// omniCall runs the JSON command of n bytes at p (which must be the
// omni_alloc buffer) and returns the reply's offset<<32 | length, or a
// negative abi.Status.
//
//go:wasmexport omni_call
func omniCall(p, n int32) int64 {
	if len(in) == 0 || uint32(p) != addr(in) || n < 0 || int(n) > len(in) {
		return -int64(abi.StatusBadPointer)
	}
	reply = sess.Call(in[:n])
	return int64(addr(reply))<<32 | int64(len(reply))
}

// omniPing calls the host's abi_version and returns x + version.
//
//go:wasmexport omni_ping
func omniPing(x int32) int32 {
	v, err := wasm.NewBackend().Version()
	if err != nil {
		return -int32(abi.Code(err))
	}
	return x + v
}

// omniSelfTest multiplies an n×n fp32 matrix by a vector through the host
// and checks every output against a plain loop here; it returns 0, a
// negative status, or 1+the first wrong row.
//
//go:wasmexport omni_selftest
func omniSelfTest(n int32) int32 {
	if n < 1 || n > 512 {
		return -int32(abi.StatusBadArgument)
	}
	b := wasm.NewBackend()
	N := int(n)
	w := make([]float32, N*N)
	x := make([]float32, N)
	for i := range w {
		w[i] = float32(i%7-3) * 0.25
	}
	for i := range x {
		x[i] = float32(i%5) - 2
	}
	h, err := b.NewMatrix(N, N, w, nil, "fp32")
	if err != nil {
		return -int32(abi.Code(err))
	}
	defer b.Free(h)
	y := make([]float32, N)
	if err := b.MatMul(y, x, 1, h); err != nil {
		return -int32(abi.Code(err))
	}
	for r := 0; r < N; r++ {
		var want float64
		for c := 0; c < N; c++ {
			want += float64(w[r*N+c]) * float64(x[c])
		}
		if math.Abs(float64(y[r])-want) > 1e-3 {
			return int32(r) + 1
		}
	}
	return 0
}

// omniFault fails on purpose so hosts can test instance replacement.
//
//go:wasmexport omni_fault
func omniFault(kind int32) int32 {
	switch kind {
	case abi.FaultPanic:
		panic(fmt.Sprintf("omni: test fault %d", kind))
	case abi.FaultDeadlock:
		select {}
	case abi.FaultSpin:
		for n := uint64(0); ; n++ {
			spinSink = n
		}
	case abi.FaultBadCall:
		// A matmul whose output lies far outside memory: the host must
		// refuse it with a status, not trap.
		b := wasm.NewBackend()
		h, err := b.NewMatrix(1, 4, make([]float32, 4), nil, "fp32")
		if err != nil {
			return -int32(abi.Code(err))
		}
		defer b.Free(h)
		x := make([]float32, 4)
		return -int32(abi.Code(wasm.RawMatMul(0xfffffff0, 1, uint32(uintptr(unsafe.Pointer(&x[0]))), 4, 1, h)))
	}
	return -int32(abi.StatusBadArgument)
}
