package simd

import "fmt"

// ELU computes out[i] = x[i] if positive, else exp(x[i]) − 1 (α = 1, see
// the package function ELU), split over the pool for long inputs. out may
// be x. It is the codec encoder's optional ELU op (codec.ELUBackend).
func (b *Backend) ELU(out, x []float32) error {
	if len(x) == 0 || len(out) != len(x) {
		return fmt.Errorf("simd: backend: ELU with len(x) %d, len(out) %d (want equal, ≥ 1)", len(x), len(out))
	}
	if b.pool != nil && len(x) >= eluSplit {
		t := &b.eluT
		t.out, t.x = out, x
		b.pool.Run(t, len(x), 2048)
		t.out, t.x = nil, nil
		return nil
	}
	ELU(out, x)
	return nil
}

// eluSplit is the number of values from which ELU splits over the pool.
const eluSplit = 16384

// eluTask runs ELU on values [lo, hi).
type eluTask struct{ out, x []float32 }

// RunRange implements Task.
func (t *eluTask) RunRange(lo, hi int) { ELU(t.out[lo:hi], t.x[lo:hi]) }
