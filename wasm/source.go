package wasm

import (
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"unsafe"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/wasm/abi"
)

// Source is the guest's predictor.Source: the model's config, and rows of
// the checkpoint tensors read by the host (op source_read) straight into
// guest memory. While its backend replays the host's load, whole-tensor
// reads do nothing: the weights already live on the host.
type Source struct {
	cfg *predictor.Config
	b   *Backend
}

// NewSource returns a source for cfg whose replays follow b.
func NewSource(cfg *predictor.Config, b *Backend) *Source { return &Source{cfg: cfg, b: b} }

// Config implements predictor.Source.
func (s *Source) Config() *predictor.Config { return s.cfg }

// Tensors implements predictor.Source: the tensors the config implies.
func (s *Source) Tensors() []safetensors.TensorInfo { return predictor.ExpectedTensors(s.cfg) }

// Hollow reports whether whole-tensor reads are hollow (during a replay),
// so the predictor's loader skips transforming values nobody uses.
func (s *Source) Hollow() bool { return s.b.replaying }

// ReadF32 implements predictor.Source. Outside a replay it refuses: a
// guest never holds whole weight tensors.
func (s *Source) ReadF32(name string, dst []float32) error {
	if s.b.replaying {
		return nil
	}
	return fmt.Errorf("wasm: read of whole tensor %s in the guest: %w", name, abi.ErrSource)
}

// ReadRowsF32 implements predictor.Source through the host.
func (s *Source) ReadRowsF32(name string, row0, n int, dst []float32) error {
	if s.b.replaying {
		return nil
	}
	r, err := n32(abi.OpSourceRead, "row0", row0)
	if err != nil {
		return err
	}
	k, err := n32(abi.OpSourceRead, "rows", n)
	if err != nil {
		return err
	}
	st := hostSourceRead(unsafe.Pointer(unsafe.StringData(name)), int32(len(name)), r, k, ptr(dst), int32(len(dst)))
	if err := check(abi.OpSourceRead, st); err != nil {
		return fmt.Errorf("wasm: rows %d..%d of %s: %w", row0, row0+n, name, err)
	}
	return nil
}

// Close implements predictor.Source.
func (s *Source) Close() error { return nil }
