package testvectors

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/omni-tts/omni/codec"
)

// runCodecEncode runs a `codec_encode` case: the encoder loaded from the
// case's codec (or checkpoint) directory in its precision, the audio
// encoded, and the codes compared with expect_codes: at fp32 every code
// whose reference margin exceeds margin_min (or its codebook's
// margin_min_per_codebook) must match where every earlier codebook of its
// frame matched, and at any precision the fraction of equal codes must
// reach min_agreement. A case with expect_error must be refused with an
// error containing that text.
func runCodecEncode(c *Case, env *Env) error {
	var model string
	if err := c.Decode("model", &model); err != nil {
		return err
	}
	prec := "fp32"
	if c.Has("precision") {
		if err := c.Decode("precision", &prec); err != nil {
			return err
		}
	}
	if err := env.CheckPrecision(c, prec); err != nil {
		return err
	}
	if c.Has("sample_rate") {
		var sr int
		if err := c.Decode("sample_rate", &sr); err != nil {
			return err
		}
		if sr != 24000 {
			return c.Errorf("sample_rate", "%d Hz: this build's codec_encode runner takes 24000 Hz audio only (no resampler wired)", sr)
		}
	}
	audio, err := c.F32("audio")
	if err != nil {
		return err
	}
	if env == nil || env.NewBackend == nil {
		return fmt.Errorf("testvectors: %s: no backend to run the encoder on (Env.NewBackend is nil)", c.Name)
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
	e, err := codec.LoadEncoder(dir, b, prec)
	if err != nil {
		return c.Errorf("model", "%v", err)
	}
	defer e.Close()
	got, encErr := e.AppendEncode(nil, audio.Data)

	if c.Has("expect_error") {
		var want string
		if err := c.Decode("expect_error", &want); err != nil {
			return err
		}
		if encErr == nil {
			return c.Errorf("expect_error", "the audio was encoded (%d frames), want an error containing %q", len(got), want)
		}
		if !strings.Contains(encErr.Error(), want) {
			return c.Errorf("expect_error", "error %q does not contain %q", encErr, want)
		}
		return nil
	}
	if encErr != nil {
		return c.Errorf("audio", "%v", encErr)
	}
	codesT, err := c.I64("expect_codes")
	if err != nil {
		return err
	}
	if len(codesT.Shape) != 2 || codesT.Shape[1] != codec.Codebooks {
		return c.Errorf("expect_codes", "shape %v, want [T, %d]", codesT.Shape, codec.Codebooks)
	}
	T := codesT.Shape[0]
	if len(got) != T {
		return c.Errorf("expect_codes", "omni gives %d frames for %d samples, the reference %d", len(got), len(audio.Data), T)
	}
	var minAgree float64
	if err := c.Decode("min_agreement", &minAgree); err != nil {
		return err
	}
	if !(minAgree >= 0 && minAgree <= 1) {
		return c.Errorf("min_agreement", "%v outside [0, 1]", minAgree)
	}
	equal := 0
	for t := 0; t < T; t++ {
		for k := 0; k < codec.Codebooks; k++ {
			if int64(got[t][k]) == codesT.Data[t*codec.Codebooks+k] {
				equal++
			}
		}
	}
	if prec == "fp32" {
		if err := checkMargins(c, got, codesT); err != nil {
			return err
		}
	}
	if frac := float64(equal) / float64(T*codec.Codebooks); !(frac >= minAgree) {
		return c.Errorf("expect_codes", "%d of %d codes (%.4f) equal the reference's, want at least %v", equal, T*codec.Codebooks, frac, minAgree)
	}
	return nil
}

// checkMargins enforces the margin rule of a codec_encode case: a code must
// equal the reference's wherever the reference's margin exceeds the bound
// and every earlier codebook of the frame equalled the reference's.
func checkMargins(c *Case, got [][codec.Codebooks]int32, want I64) error {
	var bound [codec.Codebooks]float64
	switch {
	case c.Has("margin_min_per_codebook"):
		var per []float64
		if err := c.Decode("margin_min_per_codebook", &per); err != nil {
			return err
		}
		if len(per) != codec.Codebooks {
			return c.Errorf("margin_min_per_codebook", "%d values, want %d", len(per), codec.Codebooks)
		}
		copy(bound[:], per)
	case c.Has("margin_min"):
		var m float64
		if err := c.Decode("margin_min", &m); err != nil {
			return err
		}
		for k := range bound {
			bound[k] = m
		}
	default:
		return c.Errorf("margin_min", "missing (give margin_min or margin_min_per_codebook)")
	}
	for k, v := range bound {
		if !(v >= 0) || math.IsInf(v, 0) {
			return c.Errorf("margin_min", "bound %v for codebook %d must be finite and non-negative", v, k)
		}
	}
	margin, err := c.F32("expect_margin")
	if err != nil {
		return err
	}
	if len(margin.Shape) != 2 || margin.Shape[0] != len(got) || margin.Shape[1] != codec.Codebooks {
		return c.Errorf("expect_margin", "shape %v, want [%d, %d]", margin.Shape, len(got), codec.Codebooks)
	}
	for t := range got {
		for k := 0; k < codec.Codebooks; k++ {
			i := t*codec.Codebooks + k
			w := want.Data[i]
			if int64(got[t][k]) == w {
				continue
			}
			if float64(margin.Data[i]) > bound[k] {
				return c.Errorf("expect_codes", "frame %d codebook %d: code %d, want %d (the reference's margin %.4g exceeds %.4g and the frame's earlier codes match)",
					t, k, got[t][k], w, margin.Data[i], bound[k])
			}
			break // a differing code frees the rest of the frame
		}
	}
	return nil
}
