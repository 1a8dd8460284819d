package host

import (
	"context"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/wasm/abi"
)

// hostFunc is the descriptor of one host function of module omni: its ABI
// name (parameters and types come from abi.Ops) and its body, which reads
// its arguments from the wazero value stack and returns a status.
type hostFunc struct {
	name string
	fn   func(s *hostState, mem api.Memory, stack []uint64) abi.Status
}

// The host functions, one descriptor each.
var (
	fnVersion    = hostFunc{abi.OpVersion, (*hostState).version}
	fnNewMatrix  = hostFunc{abi.OpNewMatrix, (*hostState).newMatrix}
	fnNewVector  = hostFunc{abi.OpNewVector, (*hostState).newVector}
	fnNewTable   = hostFunc{abi.OpNewTable, (*hostState).newTable}
	fnWriteTable = hostFunc{abi.OpWriteTable, (*hostState).writeTable}
	fnNewRope    = hostFunc{abi.OpNewRope, (*hostState).newRope}
	fnNewKVCache = hostFunc{abi.OpNewKVCache, (*hostState).newKVCache}
	fnFree       = hostFunc{abi.OpFree, (*hostState).free}
	fnBytes      = hostFunc{abi.OpBytes, (*hostState).bytes}
	fnMatMul     = hostFunc{abi.OpMatMul, (*hostState).matmul}
	fnMatMulAdd  = hostFunc{abi.OpMatMulAdd, (*hostState).matmulAdd}
	fnRMSNorm    = hostFunc{abi.OpRMSNorm, (*hostState).rmsNorm}
	fnSwiGLU     = hostFunc{abi.OpSwiGLU, (*hostState).swiglu}
	fnEmbed      = hostFunc{abi.OpEmbed, (*hostState).embed}
	fnAttention  = hostFunc{abi.OpAttention, (*hostState).attention}
	fnSourceRead = hostFunc{abi.OpSourceRead, (*hostState).sourceRead}

	// The codec decoder's (ops_codec.go).
	fnNewConv          = hostFunc{abi.OpNewConv, (*hostState).newConv}
	fnNewConvTranspose = hostFunc{abi.OpNewConvTranspose, (*hostState).newConvTranspose}
	fnNewDepthwise     = hostFunc{abi.OpNewDepthwise, (*hostState).newDepthwise}
	fnNewSnake         = hostFunc{abi.OpNewSnake, (*hostState).newSnake}
	fnNewWindowKV      = hostFunc{abi.OpNewWindowKV, (*hostState).newWindowKV}
	fnResetKV          = hostFunc{abi.OpResetKV, (*hostState).resetKV}
	fnConv             = hostFunc{abi.OpConv, (*hostState).conv}
	fnConvTranspose    = hostFunc{abi.OpConvTranspose, (*hostState).convTranspose}
	fnDepthwise        = hostFunc{abi.OpDepthwise, (*hostState).depthwise}
	fnLayerNorm        = hostFunc{abi.OpLayerNorm, (*hostState).layerNorm}
	fnGELU             = hostFunc{abi.OpGELU, (*hostState).gelu}
	fnSnake            = hostFunc{abi.OpSnake, (*hostState).snake}
	fnScale            = hostFunc{abi.OpScale, (*hostState).scale}
	fnWindowAttention  = hostFunc{abi.OpWindowAttention, (*hostState).windowAttention}
)

// hostFuncs lists every descriptor in abi.Ops order; registerFuncs exports
// them all.
var hostFuncs = []*hostFunc{
	&fnVersion, &fnNewMatrix, &fnNewVector, &fnNewTable, &fnWriteTable, &fnNewRope, &fnNewKVCache,
	&fnFree, &fnBytes, &fnMatMul, &fnMatMulAdd, &fnRMSNorm, &fnSwiGLU, &fnEmbed, &fnAttention,
	&fnSourceRead,
	&fnNewConv, &fnNewConvTranspose, &fnNewDepthwise, &fnNewSnake, &fnNewWindowKV, &fnResetKV,
	&fnConv, &fnConvTranspose, &fnDepthwise, &fnLayerNorm, &fnGELU, &fnSnake, &fnScale, &fnWindowAttention,
}

// valueType maps an ABI value type to wazero's.
func valueType(t abi.ValueType) api.ValueType {
	switch t {
	case abi.I64:
		return api.ValueTypeI64
	case abi.F32:
		return api.ValueTypeF32
	}
	return api.ValueTypeI32
}

// registerFuncs adds every host function to the builder with the
// stack-based GoModuleFunction form (no reflection). A panic inside a body
// is turned into abi.StatusInternal for that call.
func registerFuncs(b wazero.HostModuleBuilder, s *hostState) error {
	ops := abi.Ops()
	if len(ops) != len(hostFuncs) {
		return fmt.Errorf("host: %d host functions for %d ABI ops", len(hostFuncs), len(ops))
	}
	for i, op := range ops {
		d := hostFuncs[i]
		if d.name != op.Name {
			return fmt.Errorf("host: host function %d is %s, ABI says %s", i, d.name, op.Name)
		}
		params := make([]api.ValueType, len(op.Types))
		for j, t := range op.Types {
			params[j] = valueType(t)
		}
		fn := d.fn
		name := d.name
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, stack []uint64) {
				s.calls++
				t0 := time.Now()
				defer func() {
					s.hostTime += time.Since(t0)
					if r := recover(); r != nil {
						s.lastFail = fmt.Sprintf("%s: %v", name, r)
						stack[0] = uint64(uint32(abi.StatusInternal))
					}
				}()
				stack[0] = uint64(uint32(fn(s, m.Memory(), stack)))
			}), params, []api.ValueType{api.ValueTypeI32}).
			WithName(op.Name).
			WithParameterNames(op.Params...).
			WithResultNames("status").
			Export(op.Name)
	}
	return nil
}
