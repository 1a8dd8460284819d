package testvectors

import (
	"fmt"
	"math"
	"strings"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/speaker"
)

// cloneAudio resolves a cloning case's audio (and optional sample_rate),
// resampled to 24 kHz as omni does for users.
func cloneAudio(c *Case) ([]float32, error) {
	a, err := c.F32("audio")
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 1 {
		return nil, c.Errorf("audio", "shape %v, want [N]", a.Shape)
	}
	rate := audio.ReferenceRate
	if c.Has("sample_rate") {
		if err := c.Decode("sample_rate", &rate); err != nil {
			return nil, err
		}
	}
	r, err := audio.NewResampler(rate, audio.ReferenceRate)
	if err != nil {
		return nil, c.Errorf("sample_rate", "%v", err)
	}
	return r.Resample(nil, a.Data), nil
}

// expectError reads the optional expect_error field.
func expectError(c *Case) (string, bool, error) {
	if !c.Has("expect_error") {
		return "", false, nil
	}
	var s string
	if err := c.Decode("expect_error", &s); err != nil {
		return "", true, err
	}
	return s, true, nil
}

// checkRefusal turns err into the case's result when expect_error is set.
func checkRefusal(c *Case, err error, want string) error {
	switch {
	case err == nil:
		return c.Errorf("expect_error", "request accepted, want an error containing %q", want)
	case !strings.Contains(err.Error(), want):
		return c.Errorf("expect_error", "error %q does not contain %q", err, want)
	}
	return nil
}

// runMel runs a `mel` case: the speaker encoder's log-mel front end on the
// case's audio, compared element-wise with expect_mel (atol).
func runMel(c *Case, env *Env) error {
	x, err := cloneAudio(c)
	if err != nil {
		return err
	}
	wantErr, hasErr, err := expectError(c)
	if err != nil {
		return err
	}
	got, T, err := speaker.NewMel().Compute(nil, x)
	if hasErr {
		return checkRefusal(c, err, wantErr)
	}
	if err != nil {
		return c.Errorf("audio", "%v", err)
	}
	var atol float64
	if err := c.Decode("atol", &atol); err != nil {
		return err
	}
	if !(atol >= 0) || math.IsInf(atol, 0) {
		return c.Errorf("atol", "%v must be finite and non-negative", atol)
	}
	want, err := c.F32("expect_mel")
	if err != nil {
		return err
	}
	if len(want.Shape) != 2 || want.Shape[0] != T || want.Shape[1] != speaker.NumMels {
		return c.Errorf("expect_mel", "shape %v, omni makes [%d, %d] from %d samples", want.Shape, T, speaker.NumMels, len(x))
	}
	for i, g := range got {
		w := float64(want.Data[i])
		if d := math.Abs(float64(g) - w); !(d <= atol) {
			return c.Errorf("expect_mel", "[%d, %d]: got %v, want %v (|diff| %.3g > atol %g)", i/speaker.NumMels, i%speaker.NumMels, g, want.Data[i], d, atol)
		}
	}
	return nil
}

// runSpeaker runs a `speaker` case: the encoder of the case's Base
// checkpoint on its audio, the embedding compared with expect_embedding
// element-wise (atol/rtol) and/or by cosine similarity (min_cosine).
func runSpeaker(c *Case, env *Env) error {
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
	x, err := cloneAudio(c)
	if err != nil {
		return err
	}
	wantErr, hasErr, err := expectError(c)
	if err != nil {
		return err
	}
	if env == nil || env.NewBackend == nil {
		return fmt.Errorf("testvectors: %s: no backend to run the speaker encoder on (Env.NewBackend is nil)", c.Name)
	}
	pb, release := env.NewBackend()
	defer release()
	b, ok := pb.(speaker.Backend)
	if !ok {
		return fmt.Errorf("testvectors: %s: the backend (%T) does not offer the conv operations", c.Name, pb)
	}
	enc, err := speaker.Load(c.ModelPath(model), b, prec)
	if err != nil {
		if hasErr {
			return checkRefusal(c, err, wantErr)
		}
		return c.Errorf("model", "%v", err)
	}
	defer enc.Close()
	got := make([]float32, enc.Dim())
	err = enc.Embed(got, x)
	if hasErr {
		return checkRefusal(c, err, wantErr)
	}
	if err != nil {
		return c.Errorf("audio", "%v", err)
	}
	want, err := c.F32("expect_embedding")
	if err != nil {
		return err
	}
	if len(want.Shape) != 1 || want.Shape[0] != len(got) {
		return c.Errorf("expect_embedding", "shape %v, the model's enc_dim is %d", want.Shape, len(got))
	}
	hasTol, hasCos := c.Has("atol") || c.Has("rtol"), c.Has("min_cosine")
	if prec != "fp32" && hasTol {
		return c.Errorf("atol", "a %s case gives min_cosine only", prec)
	}
	if !hasTol && !hasCos {
		return c.Errorf("", "no comparison: give atol/rtol or min_cosine")
	}
	if hasTol {
		var atol, rtol float64
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
		for i, g := range got {
			w := float64(want.Data[i])
			if d := math.Abs(float64(g) - w); !(d <= atol+rtol*math.Abs(w)) {
				return c.Errorf("expect_embedding", "[%d]: got %v, want %v (|diff| %.3g > atol %g + rtol %g·|want|)", i, g, want.Data[i], d, atol, rtol)
			}
		}
	}
	if hasCos {
		var minCos float64
		if err := c.Decode("min_cosine", &minCos); err != nil {
			return err
		}
		var dot, ng, nw float64
		for i, g := range got {
			w := float64(want.Data[i])
			dot += float64(g) * w
			ng += float64(g) * float64(g)
			nw += w * w
		}
		cos := dot / math.Sqrt(ng*nw)
		if !(cos >= minCos) {
			return c.Errorf("expect_embedding", "cosine similarity %.6f, want at least %g", cos, minCos)
		}
	}
	return nil
}
