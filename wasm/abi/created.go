package abi

// Kind is the kind of object a handle names.
type Kind uint8

// Handle kinds.
const (
	KindNone Kind = iota
	KindMatrix
	KindVector
	KindTable
	KindRope
	KindKVCache
	// The codec decoder's kinds (codec.Backend).
	KindConv
	KindConvTranspose
	KindDepthwise
	KindSnake
	KindWindowKV
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindMatrix:
		return "matrix"
	case KindVector:
		return "vector"
	case KindTable:
		return "table"
	case KindRope:
		return "rope"
	case KindKVCache:
		return "kv cache"
	case KindConv:
		return "conv"
	case KindConvTranspose:
		return "transposed conv"
	case KindDepthwise:
		return "depthwise conv"
	case KindSnake:
		return "snake"
	case KindWindowKV:
		return "window kv"
	}
	return "none"
}

// The dims of each kind, in Created.Dims and in the host's handle table:
//
//	matrix, table: rows, cols        vector: n
//	rope: head_dim, max_pos          kv cache: layers, kv_heads, head_dim, max_pos
//	conv: out, in, kernel, dilation  transposed conv: in, out, kernel, stride
//	depthwise conv: ch, kernel       snake: ch
//	window kv: layers, heads, head_dim, window

// Created records one handle the host made while it loaded weights
// natively, in call order: the guest replays the same loading code against
// this log instead of moving the weights through its memory, and checks
// that every call asks for the object the host made.
type Created struct {
	Kind   Kind    `json:"k"`
	Dims   []int   `json:"d"`           // see the Kind's dims below
	Prec   string  `json:"p,omitempty"` // matrix precision
	Bias   bool    `json:"b,omitempty"` // matrix has a bias
	Theta  float32 `json:"t,omitempty"` // rope base
	Handle int32   `json:"h"`
}
