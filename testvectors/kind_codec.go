package testvectors

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/omni-tts/omni/codec"
)

// runCodec runs a `codec` case: the decoder loaded from the case's model
// directory in its precision, the codes decoded on one stream (in one call,
// or in the given pushes), the samples compared with expect_audio
// elementwise (atol/rtol) and/or by SNR (min_snr_db).
func runCodec(c *Case, env *Env) error {
	var model, prec string
	if err := c.Decode("model", &model); err != nil {
		return err
	}
	if err := c.Decode("precision", &prec); err != nil {
		return err
	}
	if err := env.CheckPrecision(c, prec); err != nil {
		return err
	}
	var atol, rtol, minSNR float64
	hasTol, hasSNR := c.Has("atol") || c.Has("rtol"), c.Has("min_snr_db")
	if hasTol {
		if c.Has("atol") != c.Has("rtol") {
			return c.Errorf("atol", "atol and rtol go together")
		}
		if err := c.Decode("atol", &atol); err != nil {
			return err
		}
		if err := c.Decode("rtol", &rtol); err != nil {
			return err
		}
		if !(atol >= 0) || !(rtol >= 0) || math.IsInf(atol, 0) || math.IsInf(rtol, 0) {
			return c.Errorf("atol", "atol %v and rtol %v must be finite and non-negative", atol, rtol)
		}
	}
	if hasSNR {
		if err := c.Decode("min_snr_db", &minSNR); err != nil {
			return err
		}
		if math.IsNaN(minSNR) || math.IsInf(minSNR, 0) {
			return c.Errorf("min_snr_db", "%v is not finite", minSNR)
		}
	}
	if !hasTol && !hasSNR {
		return c.Errorf("", "no comparison: give atol/rtol or min_snr_db")
	}
	codesT, err := c.I64("codes")
	if err != nil {
		return err
	}
	if len(codesT.Shape) != 2 || codesT.Shape[1] != codec.Codebooks {
		return c.Errorf("codes", "shape %v, want [T, %d]", codesT.Shape, codec.Codebooks)
	}
	T := codesT.Shape[0]
	codes := make([][codec.Codebooks]int32, T)
	for i, v := range codesT.Data {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return c.Errorf("codes", "value %d at %d does not fit int32", v, i)
		}
		codes[i/codec.Codebooks][i%codec.Codebooks] = int32(v)
	}
	pushes := []int{T}
	if c.Has("pushes") {
		if err := c.Decode("pushes", &pushes); err != nil {
			return err
		}
		sum := 0
		for i, p := range pushes {
			if p < 0 {
				return c.Errorf(fmt.Sprintf("pushes[%d]", i), "%d frames is negative", p)
			}
			sum += p
		}
		if sum != T {
			return c.Errorf("pushes", "pushes sum to %d, codes hold %d frames", sum, T)
		}
	}
	want, err := c.F32("expect_audio")
	if err != nil {
		return err
	}
	if env == nil || env.NewBackend == nil {
		return fmt.Errorf("testvectors: %s: no backend to run the codec on (Env.NewBackend is nil)", c.Name)
	}
	pb, release := env.NewBackend()
	defer release()
	b, ok := pb.(codec.Backend)
	if !ok {
		return fmt.Errorf("testvectors: %s: the backend (%T) does not offer the codec operations", c.Name, pb)
	}
	dir := model
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(c.Path), model)
	}
	m, err := codec.Load(dir, b, prec)
	if err != nil {
		return c.Errorf("model", "%v", err)
	}
	defer m.Close()
	spf := m.SamplesPerFrame()
	if len(want.Data) != T*spf {
		return c.Errorf("expect_audio", "%d samples, %d frames of %d samples make %d", len(want.Data), T, spf, T*spf)
	}
	s, err := m.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	got := make([]float32, T*spf)
	at := 0
	for _, p := range pushes {
		if err := s.Decode(codes[at:at+p], got[at*spf:(at+p)*spf]); err != nil {
			return c.Errorf("codes", "%v", err)
		}
		at += p
	}
	if hasTol {
		for i, g := range got {
			w := float64(want.Data[i])
			if d := math.Abs(float64(g) - w); !(d <= atol+rtol*math.Abs(w)) {
				return c.Errorf("expect_audio", "sample %d (frame %d): got %v, want %v (|diff| %.3g > atol %g + rtol %g·|want|)",
					i, i/spf, g, want.Data[i], d, atol, rtol)
			}
		}
	}
	if hasSNR {
		var sig, noise float64
		for i, g := range got {
			w := float64(want.Data[i])
			sig += w * w
			noise += (w - float64(g)) * (w - float64(g))
		}
		snr := 10 * math.Log10(sig/noise)
		if noise == 0 {
			snr = math.Inf(1)
		}
		if !(snr >= minSNR) {
			return c.Errorf("expect_audio", "SNR %.2f dB, want at least %.2f dB", snr, minSNR)
		}
	}
	return nil
}
