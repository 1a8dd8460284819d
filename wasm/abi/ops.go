package abi

// Module is the import module every host function lives in.
const Module = "omni"

// Version is the ABI revision. The host's OpVersion returns it and the guest
// refuses to run against a host that reports another.
const Version = 1

// ValueType is a WebAssembly value type of a host function parameter.
type ValueType byte

// The WebAssembly value types the ABI uses.
const (
	I32 ValueType = 'i'
	I64 ValueType = 'I'
	F32 ValueType = 'f'
)

// String returns the WebAssembly text name ("i32", "i64", "f32").
func (t ValueType) String() string {
	switch t {
	case I32:
		return "i32"
	case I64:
		return "i64"
	case F32:
		return "f32"
	}
	return "?"
}

// Op describes one host function: its name in Module and its parameters.
// Every op returns one i32 status.
type Op struct {
	Name   string
	Params []string    // parameter names, for diagnostics
	Types  []ValueType // one per parameter
}

// Host function names in Module.
const (
	OpVersion    = "abi_version"
	OpNewMatrix  = "new_matrix"
	OpNewVector  = "new_vector"
	OpNewTable   = "new_table"
	OpWriteTable = "write_table"
	OpNewRope    = "new_rope"
	OpNewKVCache = "new_kv_cache"
	OpFree       = "free"
	OpBytes      = "bytes"
	OpMatMul     = "matmul"
	OpMatMulAdd  = "matmul_add"
	OpRMSNorm    = "rms_norm"
	OpSwiGLU     = "swiglu"
	OpEmbed      = "embed"
	OpAttention  = "attention"
	OpSourceRead = "source_read"
)

// Host function names of the codec decoder's operations (codec.Backend).
// The codec also uses new_matrix, new_vector, new_table, free, bytes,
// matmul, rms_norm, swiglu and embed above, with the same meaning.
const (
	OpNewConv          = "new_conv"
	OpNewConvTranspose = "new_conv_transpose"
	OpNewDepthwise     = "new_depthwise"
	OpNewSnake         = "new_snake"
	OpNewWindowKV      = "new_window_kv"
	OpResetKV          = "reset_kv"
	OpConv             = "conv"
	OpConvTranspose    = "conv_transpose"
	OpDepthwise        = "depthwise"
	OpLayerNorm        = "layer_norm"
	OpGELU             = "gelu"
	OpSnake            = "snake"
	OpScale            = "scale"
	OpWindowAttention  = "window_attention"
)

// i32s returns n copies of I32.
func i32s(n int) []ValueType {
	t := make([]ValueType, n)
	for i := range t {
		t[i] = I32
	}
	return t
}

// op builds an Op whose parameters are all i32 except those listed in f32.
func op(name string, params []string, f32 ...int) Op {
	t := i32s(len(params))
	for _, i := range f32 {
		t[i] = F32
	}
	return Op{Name: name, Params: params, Types: t}
}

// Ops returns every host function in registration order. A (ptr, len) pair
// names len elements (float32 or int32, 4 bytes each) at guest offset ptr; an
// "out" parameter is the guest offset of a 4-byte (handle) or 8-byte (bytes)
// result.
func Ops() []Op {
	return []Op{
		op(OpVersion, []string{"out"}),
		op(OpNewMatrix, []string{"rows", "cols", "data", "data_len", "bias", "bias_len", "prec", "prec_len", "out"}),
		op(OpNewVector, []string{"data", "data_len", "out"}),
		op(OpNewTable, []string{"rows", "cols", "data", "data_len", "out"}),
		op(OpWriteTable, []string{"table", "row0", "data", "data_len"}),
		op(OpNewRope, []string{"head_dim", "max_pos", "theta", "out"}, 2),
		op(OpNewKVCache, []string{"layers", "kv_heads", "head_dim", "max_pos", "out"}),
		op(OpFree, []string{"handle"}),
		op(OpBytes, []string{"handle", "out"}),
		op(OpMatMul, []string{"y", "y_len", "x", "x_len", "m", "w"}),
		op(OpMatMulAdd, []string{"y", "y_len", "x", "x_len", "m", "w"}),
		op(OpRMSNorm, []string{"out", "out_len", "x", "x_len", "m", "w", "eps"}, 6),
		op(OpSwiGLU, []string{"out", "out_len", "gu", "gu_len", "m"}),
		op(OpEmbed, []string{"out", "out_len", "ids", "ids_len", "per_row", "table"}),
		op(OpAttention, []string{"out", "out_len", "qkv", "qkv_len", "m", "caches", "caches_len", "pos", "pos_len",
			"layer", "q_norm", "k_norm", "rope", "heads", "eps"}, 14),
		op(OpSourceRead, []string{"name", "name_len", "row0", "rows", "out", "out_len"}),
		// codec.Backend; "m" rows per segment, "batch" segments.
		op(OpNewConv, []string{"out_ch", "in_ch", "kernel", "dilation", "w", "w_len", "bias", "bias_len", "prec", "prec_len", "out"}),
		op(OpNewConvTranspose, []string{"in_ch", "out_ch", "kernel", "stride", "w", "w_len", "bias", "bias_len", "prec", "prec_len", "out"}),
		op(OpNewDepthwise, []string{"ch", "kernel", "w", "w_len", "bias", "bias_len", "out"}),
		op(OpNewSnake, []string{"ch", "alpha", "alpha_len", "beta", "beta_len", "out"}),
		op(OpNewWindowKV, []string{"layers", "heads", "head_dim", "window", "out"}),
		op(OpResetKV, []string{"kv"}),
		op(OpConv, []string{"y", "y_len", "x", "x_len", "m", "batch", "w"}),
		op(OpConvTranspose, []string{"y", "y_len", "x", "x_len", "m", "batch", "w", "carry", "carry_len"}),
		op(OpDepthwise, []string{"y", "y_len", "x", "x_len", "m", "batch", "w"}),
		op(OpLayerNorm, []string{"out", "out_len", "x", "x_len", "m", "w", "b", "eps"}, 7),
		op(OpGELU, []string{"out", "out_len", "x", "x_len"}),
		op(OpSnake, []string{"out", "out_len", "x", "x_len", "m", "snake"}),
		op(OpScale, []string{"out", "out_len", "x", "x_len", "m", "s"}),
		op(OpWindowAttention, []string{"out", "out_len", "qkv", "qkv_len", "m", "kv", "kv_len", "pos", "pos_len",
			"layer", "heads", "head_dim", "theta"}, 12),
	}
}

// Guest export names: the entry points the host calls. Each returns an i32
// status; results go to guest buffers the host reads back.
const (
	// ExportInit is the reactor's runtime initialiser (wasip1 c-shared).
	ExportInit = "_initialize"
	// ExportAlloc (n i32) i32 returns the guest offset of n fresh bytes the
	// host may fill (a request, a model description) until ExportRelease.
	ExportAlloc = "omni_alloc"
	// ExportRelease (ptr i32) i32 releases a buffer from ExportAlloc.
	ExportRelease = "omni_release"
	// ExportPing (x i32) i32 calls the host's OpVersion and returns x+Version
	// (a status < 0 if the host call failed): the first end-to-end check.
	ExportPing = "omni_ping"
	// ExportSelfTest (n i32) i32 runs a small matmul of width n through the
	// host backend and checks it against a plain loop in the guest.
	ExportSelfTest = "omni_selftest"
	// ExportFault (kind i32) i32 makes the guest fail on purpose (FaultPanic,
	// FaultDeadlock, FaultSpin) so hosts can test instance replacement.
	ExportFault = "omni_fault"
	// ExportCall (ptr, len i32) i32 runs one JSON command (see package wasm)
	// held in guest memory and leaves the JSON reply for ExportReply.
	ExportCall = "omni_call"
	// ExportReply (out i32) i32 writes the last reply's guest offset and
	// length (two u32) at out.
	ExportReply = "omni_reply"
)

// Fault kinds for ExportFault.
const (
	FaultPanic    = 1
	FaultDeadlock = 2
	FaultBadCall  = 3 // a host call with a wild pointer: must come back as an error, not a trap
	FaultSpin     = 4 // loop forever: only an interruptible host's timeout ends it
)
