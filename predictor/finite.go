package predictor

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/omni-tts/omni/safetensors"
)

// CheckFinite scans the weights of src that the loader does not read whole,
// and reports the first NaN or infinity as a *TensorError naming the tensor
// and the element's index, wrapping ErrNonFinite. It scans the text
// embedding table (151936 rows, of which the talker gathers the prompt's
// rows on demand, so a damaged row would otherwise reach the logits
// unseen) and every norm weight (small tensors, where one NaN poisons every
// activation). Every other weight of a checkpoint is checked as LoadWeights
// reads it (dirSource.ReadF32). OpenCheckpoint calls it, so the per-token
// path never checks a row.
func CheckFinite(src Source) error {
	var buf []float32
	for _, t := range ExpectedTensors(src.Config()) {
		switch {
		case t.Name == textEmbedding && len(t.Shape) == 2:
			if err := checkRowsFinite(src, t.Name, t.Shape[0], t.Shape[1]); err != nil {
				return err
			}
		case strings.HasSuffix(t.Name, "norm.weight"):
			buf = slices.Grow(buf[:0], int(t.Elems()))[:t.Elems()]
			if err := src.ReadF32(t.Name, buf); err != nil {
				return err
			}
			if err := checkFinite(sourceFile(src, t.Name), t.Name, buf, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// finiteChunk is how many values CheckFinite converts at a time (4 MiB of
// float32), so the text table is never held whole.
const finiteChunk = 1 << 20

// firstNonFinite returns the index of the first NaN or ±Inf in v, or -1.
// A float32 is non-finite exactly when its eight exponent bits are all
// ones; adding one to that field then carries into the sign bit, so the
// scan ORs (bits&exp)+1ulp-of-exponent over a block and tests one bit per
// block, without a branch per element (about 0.65 ns per value, 6 GB/s, on
// the shared 2-core dev machine: BenchmarkFirstNonFinite).
func firstNonFinite(v []float32) int {
	const exp, one, sign = 0x7f800000, 0x00800000, 0x80000000
	const block = 256
	for i0 := 0; i0 < len(v); i0 += block {
		b := v[i0:min(i0+block, len(v))]
		var a0, a1, a2, a3 uint32
		j := 0
		for ; j+4 <= len(b); j += 4 {
			a0 |= math.Float32bits(b[j])&exp + one
			a1 |= math.Float32bits(b[j+1])&exp + one
			a2 |= math.Float32bits(b[j+2])&exp + one
			a3 |= math.Float32bits(b[j+3])&exp + one
		}
		for ; j < len(b); j++ {
			a0 |= math.Float32bits(b[j])&exp + one
		}
		if (a0|a1|a2|a3)&sign == 0 {
			continue
		}
		for i, x := range b {
			if math.Float32bits(x)&exp == exp {
				return i0 + i
			}
		}
	}
	return -1
}

// checkFinite reports the first NaN or infinity of v, the values of tensor
// name starting at element base, as a *TensorError naming the tensor and the
// element's index in it, wrapping ErrNonFinite. file is where the tensor
// lives ("" when unknown).
func checkFinite(file, name string, v []float32, base int) error {
	i := firstNonFinite(v)
	if i < 0 {
		return nil
	}
	return &safetensors.TensorError{File: file, Name: name, Index: base + i, Err: fmt.Errorf("%w: value %v", ErrNonFinite, v[i])}
}

// NonFinite describes a tensor that holds NaN or infinite values.
type NonFinite struct {
	Name  string  `json:"name"`  // tensor name
	First int     `json:"first"` // element index of the first non-finite value
	Value float32 `json:"-"`     // that value (NaN, +Inf or -Inf)
	Count int64   `json:"count"` // how many values are non-finite
}

// ScanFinite reads every float tensor of src once, a chunk of rows at a
// time (a 1-D tensor's rows are its elements), and returns the tensors
// holding a NaN or infinity, in src's tensor order. It is the
// whole-checkpoint check behind "omni model inspect"; opening and loading
// a checkpoint check the same values (CheckFinite, LoadWeights) but stop at
// the first.
func ScanFinite(src Source) ([]NonFinite, error) {
	var out []NonFinite
	var buf []float32
	for _, t := range src.Tensors() {
		if !t.DType.IsFloat() || t.DType == safetensors.F64 || t.Elems() == 0 {
			continue
		}
		if len(t.Shape) == 0 {
			continue
		}
		rows := t.Shape[0]
		cols := int(t.Elems()) / rows
		per := max(1, finiteChunk/cols)
		buf = slices.Grow(buf[:0], per*cols)[:per*cols]
		nf := NonFinite{Name: t.Name, First: -1}
		for r := 0; r < rows; r += per {
			n := min(per, rows-r)
			v := buf[:n*cols]
			if err := src.ReadRowsF32(t.Name, r, n, v); err != nil {
				return out, err
			}
			i := firstNonFinite(v)
			if i < 0 {
				continue
			}
			if nf.First < 0 {
				nf.First, nf.Value = r*cols+i, v[i]
			}
			for _, x := range v[i:] {
				if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
					nf.Count++
				}
			}
		}
		if nf.Count > 0 {
			out = append(out, nf)
		}
	}
	return out, nil
}

// checkRowsFinite scans the rows×cols table name of src for a NaN or
// infinity, its rows split into one part per core (each on its own
// goroutine with its own buffer: the scan of a 0.6B model's text table was
// a second of every start). The error is the first in row order: each part
// stops at its own first, and the lowest part's wins.
func checkRowsFinite(src Source, name string, rows, cols int) error {
	parts := min(runtime.GOMAXPROCS(0), 8, rows)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := rows*p/parts, rows*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			per := max(1, finiteChunk/cols)
			buf := make([]float32, min(per, hi-lo)*cols)
			for r := lo; r < hi; r += per {
				n := min(per, hi-r)
				if err := src.ReadRowsF32(name, r, n, buf[:n*cols]); err != nil {
					errs[p] = err
					return
				}
				if err := checkFinite(sourceFile(src, name), name, buf[:n*cols], r*cols); err != nil {
					errs[p] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
