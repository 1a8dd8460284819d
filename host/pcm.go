package host

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// maxPCM bounds the samples one abi.PCM reference may name (a bad
// reference is refused before any copy): 2²⁶ samples, 46 minutes at 24 kHz.
const maxPCM = 1 << 26

// pcm appends to dst the samples ref names in the instance's memory: the
// guest→host hand-off of audio (abi.PCM), valid after the reply that
// carried ref and before the next call into the guest. The range is checked
// through the memory view (f32View); a reference outside memory,
// misaligned or too long is an error wrapping abi.ErrBadPointer or
// abi.ErrBadLength, and the instance stays usable.
func (in *instance) pcm(ref abi.PCM, dst []float32) ([]float32, error) {
	if in.mod == nil {
		return dst, ErrTrapped
	}
	if ref.Len == 0 {
		return dst, nil
	}
	if ref.Len < 0 || ref.Len > maxPCM {
		return dst, fmt.Errorf("host: guest pcm of %d samples: %w", ref.Len, abi.ErrBadLength)
	}
	v, st := f32View(in.mod.Memory(), ref.Ptr, ref.Len)
	if st != abi.StatusOK {
		return dst, fmt.Errorf("host: guest pcm %#x+%d samples: %w", ref.Ptr, ref.Len, st.Err())
	}
	return append(dst, v...), nil
}

// codecDecode sends a codec command and returns the samples the guest
// handed back.
func (in *instance) codecDecode(spec *abi.CodecSpec) ([]float32, error) {
	rep, err := in.command(&abi.Command{Op: abi.CmdCodec, Codec: spec})
	if err != nil {
		return nil, err
	}
	if rep.PCM == nil {
		return nil, fmt.Errorf("host: guest codec reply without pcm: %w", abi.ErrGuest)
	}
	return in.pcm(*rep.PCM, nil)
}

// CodecDecodeOptions configure CodecDecode.
type CodecDecodeOptions struct {
	// Load loads the codec on the backend it is given (codec.Load,
	// codec.NewSynthetic, OpenCodec…); CodecDecode gives it the host's
	// recorder, so the weights are loaded once, natively, and the guest
	// replays the load.
	Load    func(b codec.Backend) (*codec.Model, error)
	Codes   [][codec.Codebooks]int32
	Pushes  []int // frames per decode call on the one stream (nil: one call)
	Threads int   // kernel threads (0 = simd.DefaultThreads())
	// CacheDir is the compilation cache, as Options.CacheDir.
	CacheDir string
}

// CodecDecode decodes codes on one stream inside the WASI guest: the codec
// is loaded natively through the host's recorder, the guest replays that
// load (no weight enters guest memory) and runs the codec graph in wasm
// with the native kernels as host functions, and the samples come back in
// binary (abi.PCM). It returns the samples and the codec's geometry; they
// are the bits a native decode of the same pushes gives.
func CodecDecode(ctx context.Context, o CodecDecodeOptions) ([]float32, codec.Config, error) {
	if o.Load == nil {
		return nil, codec.Config{}, fmt.Errorf("host: codec decode without a loader")
	}
	threads := o.Threads
	if threads == 0 {
		threads = simd.DefaultThreads()
	}
	nb := simd.NewBackend(threads)
	defer nb.Close()
	s := newHostState(nb, nil, 16<<30)
	m, load, err := recordCodec(s, o.Load)
	if err != nil {
		return nil, codec.Config{}, err
	}
	defer m.Close()
	v, err := newVM(ctx, s, vmConfig{cacheDir: o.CacheDir})
	if err != nil {
		return nil, codec.Config{}, err
	}
	defer v.close(context.Background())
	in, err := v.newInstance(ctx, s, 0)
	if err != nil {
		return nil, codec.Config{}, err
	}
	defer in.discard()
	pcm, err := in.codecDecode(&abi.CodecSpec{Load: load, Codes: o.Codes, Pushes: o.Pushes})
	return pcm, m.Config(), err
}
