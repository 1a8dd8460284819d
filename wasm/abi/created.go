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
	}
	return "none"
}

// Created records one handle the host made while it loaded weights
// natively, in call order: the guest replays the same loading code against
// this log instead of moving the weights through its memory, and checks
// that every call asks for the object the host made.
type Created struct {
	Kind   Kind    `json:"k"`
	Dims   []int   `json:"d"`           // matrix/table: rows, cols; vector: n; rope: head_dim, max_pos; kv: layers, kv_heads, head_dim, max_pos
	Prec   string  `json:"p,omitempty"` // matrix precision
	Bias   bool    `json:"b,omitempty"` // matrix has a bias
	Theta  float32 `json:"t,omitempty"` // rope base
	Handle int32   `json:"h"`
}
