package host

import (
	"bytes"
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/wasm/abi"
)

// TestGuestImportsMatchHostExports compiles the embedded guest and checks
// every function it imports from module omni against the host's
// descriptors, by name and signature, and that the descriptors follow the
// ABI table.
func TestGuestImportsMatchHostExports(t *testing.T) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cacheFor("")))
	defer r.Close(ctx)
	c, err := r.CompileModule(ctx, guestWasm)
	if err != nil {
		t.Fatal(err)
	}
	ops := abi.Ops()
	if len(ops) != len(hostFuncs) {
		t.Fatalf("%d ABI ops, %d host descriptors", len(ops), len(hostFuncs))
	}
	byName := map[string]abi.Op{}
	for i, op := range ops {
		if hostFuncs[i].name != op.Name {
			t.Errorf("descriptor %d is %s, ABI op %d is %s", i, hostFuncs[i].name, i, op.Name)
		}
		byName[op.Name] = op
	}
	imported := map[string]bool{}
	for _, f := range c.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != abi.Module {
			continue
		}
		imported[name] = true
		op, ok := byName[name]
		if !ok {
			t.Errorf("guest imports %s.%s, which the host does not export", mod, name)
			continue
		}
		pt := f.ParamTypes()
		if len(pt) != len(op.Types) {
			t.Errorf("%s: guest has %d params, host %d", name, len(pt), len(op.Types))
			continue
		}
		for i := range pt {
			if pt[i] != valueType(op.Types[i]) {
				t.Errorf("%s param %d (%s): guest %s, host %s", name, i, op.Params[i], api.ValueTypeName(pt[i]), api.ValueTypeName(valueType(op.Types[i])))
			}
		}
		if rt := f.ResultTypes(); len(rt) != 1 || rt[0] != api.ValueTypeI32 {
			t.Errorf("%s: guest results %v, want one i32 status", name, rt)
		}
	}
	// The linker drops imports the guest never calls (Bytes, ResetKV); the ops of
	// the talker's and the codec's graphs must all be there.
	for _, name := range []string{abi.OpVersion, abi.OpNewKVCache, abi.OpFree, abi.OpMatMul, abi.OpMatMulAdd,
		abi.OpRMSNorm, abi.OpSwiGLU, abi.OpEmbed, abi.OpAttention, abi.OpSourceRead,
		abi.OpNewConv, abi.OpNewConvTranspose, abi.OpNewDepthwise, abi.OpNewSnake, abi.OpNewWindowKV,
		abi.OpConv, abi.OpConvTranspose, abi.OpDepthwise, abi.OpLayerNorm, abi.OpGELU, abi.OpSnake, abi.OpScale,
		abi.OpWindowAttention} {
		if !imported[name] {
			t.Errorf("guest does not import %s", name)
		}
	}
	exports := c.ExportedFunctions()
	for _, name := range []string{abi.ExportInit, abi.ExportAlloc, abi.ExportCall, abi.ExportPing, abi.ExportSelfTest, abi.ExportFault} {
		if _, ok := exports[name]; !ok {
			t.Errorf("guest lacks export %s", name)
		}
	}
	if err := checkImports(c); err != nil {
		t.Error(err)
	}
}

// TestEmbeddedGuestIsFresh rebuilds the guest from the sources with the
// go:generate command's flags and fails if the committed guest.wasm
// differs: run `go generate ./host/...` after changing any package the
// guest links (wasm, core, predictor, sampler, sched, stats).
func TestEmbeddedGuestIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("rebuilds the guest (slow on a cold cache); CI runs it")
	}
	got := buildWasm(t, "../wasm/guest")
	if !bytes.Equal(got, guestWasm) {
		t.Fatalf("host/guest.wasm (%d bytes) differs from a fresh build of ./wasm/guest (%d bytes): run `go generate ./host/...` and commit host/guest.wasm", len(guestWasm), len(got))
	}
}
