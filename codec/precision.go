package codec

import (
	"fmt"
	"strings"
)

// Layer families, the units a precision spec sets one by one: "transformer"
// (the RVQ output projections, pre_conv and the pre-transformer with its
// input and output projections), "upsample" (the upsample stages'
// transposed convs and ConvNeXt pointwise layers), "vocoder_in" (the
// vocoder's first conv), "tconv" (the vocoder blocks' transposed convs),
// "res" (the residual units' convs) and "out" (the output conv).
const (
	FamTransformer = "transformer"
	FamUpsample    = "upsample"
	FamVocoderIn   = "vocoder_in"
	FamTConv       = "tconv"
	FamRes         = "res"
	FamOut         = "out"
)

// Families lists the layer families in graph order.
func Families() []string {
	return []string{FamTransformer, FamUpsample, FamVocoderIn, FamTConv, FamRes, FamOut}
}

// layerPrecisions are the per-layer precisions ("fp32", "bf16", "int8")
// of each family.
var layerPrecisions = []string{"fp32", "bf16", "int8"}

// precisionSpec is a parsed precision: one backend precision per family,
// or the preset "mixed" (by rows, see MixedRows).
type precisionSpec struct {
	mixed bool
	fam   map[string]string
}

// ParsePrecision checks a codec precision: one of Precisions(), or a spec
// "BASE+FAMILY=P+…" — an optional base precision (fp32, bf16 or int8; fp32
// when absent) for every family, then per-family overrides, e.g.
// "bf16+transformer=fp32" or "res=int8+tconv=int8". It returns the spec in
// its canonical form.
func ParsePrecision(s string) (string, error) {
	p, err := parsePrecision(s)
	if err != nil {
		return "", err
	}
	if p.mixed {
		return "mixed", nil
	}
	return p.String(), nil
}

// FamilyPrecisions returns the layer precision ("fp32", "bf16", "int8") of
// every family under precision spec s, or nil for "mixed" (a layer's
// precision there follows its rows).
func FamilyPrecisions(s string) (map[string]string, error) {
	p, err := parsePrecision(s)
	if err != nil || p.mixed {
		return nil, err
	}
	out := make(map[string]string, len(p.fam))
	for f, q := range p.fam {
		out[f] = q
	}
	return out, nil
}

// String returns the canonical form: the base, then the overrides in
// family order.
func (p precisionSpec) String() string {
	if p.mixed {
		return "mixed"
	}
	counts := map[string]int{}
	for _, f := range Families() {
		counts[p.fam[f]]++
	}
	base := "fp32"
	for _, q := range layerPrecisions {
		if counts[q] > counts[base] {
			base = q
		}
	}
	parts := []string{base}
	for _, f := range Families() {
		if p.fam[f] != base {
			parts = append(parts, f+"="+p.fam[f])
		}
	}
	return strings.Join(parts, "+")
}

func parsePrecision(s string) (precisionSpec, error) {
	if s == "mixed" {
		return precisionSpec{mixed: true}, nil
	}
	p := precisionSpec{fam: map[string]string{}}
	for _, f := range Families() {
		p.fam[f] = "fp32"
	}
	isPrec := func(q string) bool {
		for _, v := range layerPrecisions {
			if q == v {
				return true
			}
		}
		return false
	}
	for i, tok := range strings.Split(s, "+") {
		fam, q, ok := strings.Cut(tok, "=")
		if !ok {
			if i > 0 || !isPrec(tok) {
				return p, errorf(ErrArgs, "precision %q: %q is not a base precision (%s) first nor FAMILY=PRECISION (families %s)",
					s, tok, strings.Join(layerPrecisions, ", "), strings.Join(Families(), ", "))
			}
			for _, f := range Families() {
				p.fam[f] = tok
			}
			continue
		}
		if _, known := p.fam[fam]; !known {
			return p, errorf(ErrArgs, "precision %q: unknown layer family %q (want %s)", s, fam, strings.Join(Families(), ", "))
		}
		if !isPrec(q) {
			return p, errorf(ErrArgs, "precision %q: family %s: precision %q (want %s)", s, fam, q, strings.Join(layerPrecisions, ", "))
		}
		p.fam[fam] = q
	}
	return p, nil
}

// layer returns the backend precision of a layer of family fam that runs
// perFrame rows per stream and frame.
func (p precisionSpec) layer(fam string, perFrame int) string {
	if p.mixed {
		if perFrame <= MixedRows {
			return "int8"
		}
		return "fp32"
	}
	if q, ok := p.fam[fam]; ok {
		return q
	}
	panic(fmt.Sprintf("omni: BUG: codec layer family %q", fam))
}
