package simd

import "fmt"

// AddTo adds src to dst element-wise (dst[i] += src[i], each sum rounded
// to float32 as a scalar loop would: the same bits), split over the pool
// for long inputs. It is the codec's optional residual add
// (codec.AddBackend).
func (b *Backend) AddTo(dst, src []float32) error {
	if len(src) == 0 || len(dst) != len(src) {
		return fmt.Errorf("simd: backend: AddTo with len(dst) %d, len(src) %d (want equal, ≥ 1)", len(dst), len(src))
	}
	if b.pool != nil && len(src) >= addSplit {
		t := &b.addT
		t.dst, t.src = dst, src
		b.pool.Run(t, len(src), 4096)
		t.dst, t.src = nil, nil
		return nil
	}
	Add(dst, src)
	return nil
}

// addSplit is the number of values from which AddTo splits over the pool.
const addSplit = 32768

// addTask runs AddTo on values [lo, hi).
type addTask struct{ dst, src []float32 }

// RunRange implements Task.
func (t *addTask) RunRange(lo, hi int) { Add(t.dst[lo:hi], t.src[lo:hi]) }
