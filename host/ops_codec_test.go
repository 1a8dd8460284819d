package host

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// TestCodecOpsNeverPanic calls every codec host function body directly,
// thousands of times, with arguments drawn from values near the valid ones
// and from hostile ones (zero, negative, huge, wild and misaligned
// pointers, handles of every kind, stale and foreign handles), on a real
// guest memory. Whatever the arguments, the body must return a status:
// never panic (a panic in a kernel's worker would take the host down), and
// a call it refuses must not change the objects' accounting.
func TestCodecOpsNeverPanic(t *testing.T) {
	nb := simd.NewBackend(2)
	defer nb.Close()
	s := newHostState(nb, nil, 1<<26)
	v, err := newVM(context.Background(), s, vmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(context.Background())
	in, err := v.newInstance(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.discard()
	mem := in.mod.Memory()
	// A scratch region of guest memory the fuzzed calls may point into:
	// 64 KiB from the top of the initial memory, filled with small values.
	base := mem.Size() - 1<<16
	for i := uint32(0); i < 1<<14; i++ {
		mem.WriteFloat32Le(base+4*i, float32(i%11)*0.25-1)
	}
	call := func(fn func(*hostState, api.Memory, []uint64) abi.Status, st []uint64) (status abi.Status) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("host function body panicked on %v: %v", st, r)
			}
		}()
		return fn(s, mem, st)
	}
	// Objects of the instance to aim at: made through the host functions
	// themselves (a conv, a transposed conv, a depthwise conv, a snake, a
	// window state, vectors), plus a freed handle and a host-owned state.
	out := base + 4*(1<<14-4)
	fp32 := base + 4*(1<<14-8)
	mem.Write(fp32, []byte("fp32"))
	mk := func(fn func(*hostState, api.Memory, []uint64) abi.Status, st ...uint64) uint64 {
		t.Helper()
		if x := call(fn, st); x != abi.StatusOK {
			t.Fatalf("setup call %v: %v", st, x)
		}
		h, _ := mem.ReadUint32Le(out)
		return uint64(h)
	}
	p := func(i uint32) uint64 { return uint64(base + 4*i) }
	u := func(v int32) uint64 { return api.EncodeI32(v) }
	handles := []uint64{
		mk((*hostState).newConv, 8, 8, 3, 2, p(0), 192, p(0), 8, uint64(fp32), 4, uint64(out)),
		mk((*hostState).newConvTranspose, 8, 4, 4, 2, p(0), 128, 0, 0, uint64(fp32), 4, uint64(out)),
		mk((*hostState).newDepthwise, 8, 7, p(0), 56, p(0), 8, uint64(out)),
		mk((*hostState).newSnake, 8, p(0), 8, p(8), 8, uint64(out)),
		mk((*hostState).newWindowKV, 2, 2, 4, 3, uint64(out)),
		mk((*hostState).newVector, p(0), 8, uint64(out)),
		mk((*hostState).newVector, p(0), 4, uint64(out)),
	}
	stale := mk((*hostState).newVector, p(0), 8, uint64(out))
	if x := call((*hostState).free, []uint64{stale}); x != abi.StatusOK {
		t.Fatal(x)
	}
	nw, _ := nb.NewWindowKV(2, 2, 4, 3)
	hostWin, _ := s.table.add(nw, abi.KindWindowKV, [4]int{2, 2, 4, 3}, windowKVBytes(2, 2, 4, 3), ownerHost)
	handles = append(handles, stale, uint64(hostWin), 0, u(-1), 0x00ffffff)

	sizes := []int32{0, 1, 2, 3, 4, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 1 << 12, 1 << 20, 1 << 30, -1, -8, math.MaxInt32, math.MinInt32}
	ptrs := []uint64{p(0), p(1), p(100), p(1 << 13), p(1<<14 - 16), uint64(base + 2), 0, 4, uint64(mem.Size() - 4), uint64(mem.Size()), 0xfffffff0, 0xffffffff}
	floats := []float32{1e-5, 1, 10000, 0, -1, float32(math.NaN()), float32(math.Inf(1)), 1e30}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(kind byte) uint64 {
		switch kind {
		case 'n':
			if r.IntN(4) == 0 {
				return u(int32(r.IntN(64)))
			}
			return u(sizes[r.IntN(len(sizes))])
		case 'p':
			return ptrs[r.IntN(len(ptrs))]
		case 'h':
			return handles[r.IntN(len(handles))]
		case 'f':
			return api.EncodeF32(floats[r.IntN(len(floats))])
		case 's':
			return uint64(fp32) + uint64(r.IntN(2)) // "fp32", or "p32…"
		}
		return uint64(out)
	}
	hConv, hConvT, hDW, hSnake, hWin, hV8 := handles[0], handles[1], handles[2], handles[3], handles[4], handles[5]
	eps, theta := api.EncodeF32(1e-5), api.EncodeF32(10000)
	y, sl := p(1000), uint64(out)
	ops := []struct {
		name  string
		fn    func(*hostState, api.Memory, []uint64) abi.Status
		args  string   // n size, p pointer, h handle, f float, s precision, o result slot
		valid []uint64 // a good call, which the fuzzing mutates in one or two places half the time
	}{
		{abi.OpNewConv, (*hostState).newConv, "nnnnpnpnpno", []uint64{8, 8, 3, 2, p(0), 192, p(0), 8, uint64(fp32), 4, sl}},
		{abi.OpNewConvTranspose, (*hostState).newConvTranspose, "nnnnpnpnpno", []uint64{8, 4, 4, 2, p(0), 128, 0, 0, uint64(fp32), 4, sl}},
		{abi.OpNewDepthwise, (*hostState).newDepthwise, "nnpnpno", []uint64{8, 7, p(0), 56, p(0), 8, sl}},
		{abi.OpNewSnake, (*hostState).newSnake, "npnpno", []uint64{8, p(0), 8, p(8), 8, sl}},
		{abi.OpNewWindowKV, (*hostState).newWindowKV, "nnnno", []uint64{2, 2, 4, 3, sl}},
		{abi.OpResetKV, (*hostState).resetKV, "h", []uint64{hWin}},
		{abi.OpConv, (*hostState).conv, "pnpnnnh", []uint64{y, 16, p(0), 48, 2, 1, hConv}},
		{abi.OpConvTranspose, (*hostState).convTranspose, "pnpnnnhpn", []uint64{y, 16, p(0), 16, 2, 1, hConvT, p(3000), 8}},
		{abi.OpDepthwise, (*hostState).depthwise, "pnpnnnh", []uint64{y, 16, p(0), 64, 2, 1, hDW}},
		{abi.OpLayerNorm, (*hostState).layerNorm, "pnpnnhhf", []uint64{y, 16, p(0), 16, 2, hV8, hV8, eps}},
		{abi.OpGELU, (*hostState).gelu, "pnpn", []uint64{y, 16, p(0), 16}},
		{abi.OpSnake, (*hostState).snake, "pnpnnh", []uint64{y, 16, p(0), 16, 2, hSnake}},
		{abi.OpScale, (*hostState).scale, "pnpnnh", []uint64{y, 16, p(0), 16, 2, hV8}},
		{abi.OpWindowAttention, (*hostState).windowAttention, "pnpnnpnpnnnnf", []uint64{y, 8, p(0), 24, 1, p(200), 1, p(210), 1, 0, 2, 4, theta}},
	}
	n := 3000
	if testing.Short() {
		n = 500
	}
	ok := map[string]int{}
	for _, op := range ops {
		st := make([]uint64, len(op.args))
		for i := 0; i < n; i++ {
			if r.IntN(2) == 0 {
				copy(st, op.valid)
				for range 1 + r.IntN(2) {
					j := r.IntN(len(st))
					st[j] = pick(op.args[j])
				}
				if r.IntN(8) == 0 {
					copy(st, op.valid) // the good call itself
				}
			} else {
				for j, k := range []byte(op.args) {
					st[j] = pick(k)
				}
			}
			// The window attention's state and position lists: mostly the
			// good state at small positions, sometimes any handle.
			if op.name == abi.OpWindowAttention {
				for q := uint32(0); q < 4; q++ {
					h := hWin
					if r.IntN(4) == 0 {
						h = handles[r.IntN(len(handles))]
					}
					mem.WriteUint32Le(base+4*(200+q), uint32(h))
					mem.WriteUint32Le(base+4*(210+q), uint32(r.IntN(5)-1))
				}
				if r.IntN(2) == 0 { // the good state, empty, at position 0
					e, _ := s.table.lookup(int32(hWin), abi.KindWindowKV, s.current)
					if err := nb.ResetKV(e.native); err != nil {
						t.Fatal(err)
					}
					mem.WriteUint32Le(base+4*200, uint32(hWin))
					mem.WriteUint32Le(base+4*210, 0)
				}
			}
			live, used := s.table.live, s.used
			x := call(op.fn, st)
			if x == abi.StatusOK {
				ok[op.name]++
				// Free what a successful creation made, so the table stays small.
				if op.args[len(op.args)-1] == 'o' {
					h, _ := mem.ReadUint32Le(out)
					if f := call((*hostState).free, []uint64{uint64(h)}); f != abi.StatusOK {
						t.Fatalf("%s: free of the new handle: %v", op.name, f)
					}
				}
			} else if s.table.live != live || s.used != used {
				t.Fatalf("%s %v refused (%v) but changed the table: %d→%d live, %d→%d bytes", op.name, st, x, live, s.table.live, used, s.used)
			}
			// Restore the scratch values a successful call may have overwritten
			// with non-finite ones (weights made from them would be refused).
			if x == abi.StatusOK && i%64 == 0 {
				for k := uint32(0); k < 1<<10; k++ {
					mem.WriteFloat32Le(base+4*k, float32(k%11)*0.25-1)
				}
			}
		}
	}
	t.Log(fmt.Sprint("successful calls per op: ", ok))
	for _, op := range ops {
		if ok[op.name] == 0 {
			t.Errorf("%s never succeeded: the fuzzing reached none of its kernel", op.name)
		}
	}
}
