package predictor

import (
	"fmt"
	"math"
	"slices"
)

// Guarded residual channels.
//
// A decoder stack's RMSNorm gains multiply residual channels before every
// matrix and before the head; a channel whose gain is far above the others
// (the outlier channels of trained LLMs) turns the small relative error an
// int8 o_proj or down_proj makes in that channel into a large error of
// everything downstream. On the synthetic 0.6B model with outliers (gains
// 20–60 on 6 of 1024 channels) those 6 rows of o_proj and down_proj carry
// more than half of int8's KL against fp32. So in int8 the rows of o_proj
// and down_proj that write a guarded channel are kept in fp32 (a small
// k×cols matrix beside the int8 one, whose copies of those rows are zero),
// and their output is added to the residual after the int8 product. It is a
// static form of LLM.int8()'s mixed-precision decomposition, chosen from the
// gains at load time: no calibration data, no per-token cost beyond a
// k-row fp32 product.
const (
	// guardRatio: a channel is guarded when its largest gain in the stack
	// is at least guardRatio times the median channel's.
	guardRatio = 8
	// guardShare caps the guarded channels at hidden/guardShare (the
	// largest gains win), so the fp32 rows add at most ~6% to the bytes of
	// o_proj and down_proj.
	guardShare = 64
)

// Guards lists, per decoder stack, the residual channels whose o_proj and
// down_proj rows are kept in fp32 in int8 precision (ascending; empty when
// none or in another precision). LoadWeights chooses them from the
// checkpoint's norm gains; a WASI guest, which never reads weight data, is
// given the host's choice.
type Guards struct {
	Talker    []int32 `json:"talker,omitempty"`
	Predictor []int32 `json:"predictor,omitempty"`
}

// stack returns the guard list of the stack with tensor prefix p.
func (g *Guards) stack(p string) *[]int32 {
	if p == talkerPrefix {
		return &g.Talker
	}
	return &g.Predictor
}

// guardChannels chooses the guarded channels of the decoder stack with
// tensor prefix prefix from the largest |gain| of each channel over every
// input_layernorm, post_attention_layernorm and the final norm.
func (ld *loader) guardChannels(prefix string, g geometry) ([]int32, error) {
	sens := make([]float64, g.hidden)
	buf := make([]float32, g.hidden)
	names := []string{prefix + "norm.weight"}
	for l := 0; l < g.layers; l++ {
		p := fmt.Sprintf("%slayers.%d.", prefix, l)
		names = append(names, p+"input_layernorm.weight", p+"post_attention_layernorm.weight")
	}
	for _, name := range names {
		if err := ld.read(name, buf); err != nil {
			return nil, err
		}
		for c, v := range buf {
			sens[c] = math.Max(sens[c], math.Abs(float64(v)))
		}
	}
	return pickGuards(sens, guardRatio, g.hidden/guardShare), nil
}

// pickGuards returns, ascending, the channels c with sens[c] ≥
// ratio·median(sens), at most limit of them (the largest sens first).
func pickGuards(sens []float64, ratio float64, limit int) []int32 {
	if len(sens) == 0 || limit <= 0 {
		return nil
	}
	sorted := slices.Clone(sens)
	slices.Sort(sorted)
	med := sorted[len(sorted)/2]
	if !(med > 0) {
		return nil
	}
	var out []int32
	for c, s := range sens {
		if s >= ratio*med {
			out = append(out, int32(c))
		}
	}
	if len(out) > limit {
		slices.SortStableFunc(out, func(a, b int32) int {
			if sens[a] != sens[b] {
				if sens[a] > sens[b] {
					return -1
				}
				return 1
			}
			return int(a - b)
		})
		out = out[:limit]
		slices.Sort(out)
	}
	return out
}

// guardedMatrix uploads the rows×cols tensor name in precision prec with
// the rows listed in guard moved to a separate fp32 matrix: it returns the
// main matrix (guarded rows zero) and the guard matrix (len(guard)×cols,
// row j = row guard[j]), or -1 for the latter when guard is empty.
func (ld *loader) guardedMatrix(name string, rows, cols int, prec string, guard []int32) (int32, int32, error) {
	if len(guard) == 0 {
		h, err := ld.matrix([]string{name}, []int{rows}, cols, "", prec)
		return h, -1, err
	}
	buf := ld.grow(rows * cols)
	if err := ld.read(name, buf); err != nil {
		return -1, -1, err
	}
	kept := make([]float32, len(guard)*cols)
	for j, r := range guard {
		if int(r) < 0 || int(r) >= rows {
			return -1, -1, fmt.Errorf("predictor: %s: guarded row %d outside %d rows", name, r, rows)
		}
		row := buf[int(r)*cols : (int(r)+1)*cols]
		copy(kept[j*cols:], row)
		clear(row)
	}
	h, err := ld.keep(ld.b.NewMatrix(rows, cols, buf, nil, prec))
	if err != nil {
		return -1, -1, fmt.Errorf("predictor: upload %s: %w", name, err)
	}
	gh, err := ld.keep(ld.b.NewMatrix(len(guard), cols, kept, nil, "fp32"))
	if err != nil {
		return -1, -1, fmt.Errorf("predictor: upload %s guarded rows: %w", name, err)
	}
	return h, gh, nil
}

// addGuarded adds the guarded rows' product with x (m rows) to the
// residual y (m rows of hidden) at the guarded channels; gh < 0 is a no-op.
func (d *decoder) addGuarded(y, x []float32, m int, gh int32, s *scratch) error {
	if gh < 0 {
		return nil
	}
	k := len(d.guard)
	z := s.guard[:m*k]
	if err := d.b.MatMul(z, x, m, gh); err != nil {
		return err
	}
	hid := d.geom.hidden
	for i := 0; i < m; i++ {
		yr, zr := y[i*hid:(i+1)*hid], z[i*k:(i+1)*k]
		for j, c := range d.guard {
			yr[c] += zr[j]
		}
	}
	return nil
}
