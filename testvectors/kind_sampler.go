package testvectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/omni-tts/omni/sampler"
)

// samplerRequest is one batch row of a "sampler" case.
type samplerRequest struct {
	Params json.RawMessage `json:"params"`
	Prompt []int           `json:"prompt_token_ids"`
	Output []int           `json:"output_token_ids"`
}

// samplerStep is one decode step of a "sampler" case.
type samplerStep struct {
	Logits          json.RawMessage `json:"logits"`
	ExpectTokens    []int           `json:"expect_tokens"`
	ExpectProcessed json.RawMessage `json:"expect_processed"`
	ExpectError     *string         `json:"expect_error"`
}

// Tolerances of expect_processed (docs/TESTVECTORS.md).
const (
	processedAtol = 1e-6
	processedRtol = 1e-6
)

// runSampler runs a "sampler" case: every step's logits through one batched
// sampler, tokens compared exactly, processed logits within 1e-6, histories
// teacher-forced with the expected tokens.
func runSampler(c *Case, _ *Env) error {
	var vocab int
	if err := c.Decode("vocab", &vocab); err != nil {
		return err
	}
	if vocab <= 0 {
		return c.Errorf("vocab", "%d must be positive", vocab)
	}
	var rawReqs []json.RawMessage
	if err := c.Decode("requests", &rawReqs); err != nil {
		return err
	}
	if len(rawReqs) == 0 {
		return c.Errorf("requests", "no requests")
	}
	var rawSteps []json.RawMessage
	if err := c.Decode("steps", &rawSteps); err != nil {
		return err
	}
	if len(rawSteps) == 0 {
		return c.Errorf("steps", "no steps")
	}
	steps := make([]samplerStep, len(rawSteps))
	for i, r := range rawSteps {
		f := fmt.Sprintf("steps[%d]", i)
		if err := decodeStrict(c, f, r, &steps[i]); err != nil {
			return err
		}
		if steps[i].Logits == nil {
			return &FieldError{File: c.Path, Field: f + ".logits", Err: ErrMissing}
		}
		if steps[i].ExpectError != nil {
			if i != 0 {
				return c.Errorf(f+".expect_error", "allowed on the first step only")
			}
			if steps[i].ExpectTokens != nil {
				return c.Errorf(f+".expect_tokens", "a step with expect_error has no expect_tokens")
			}
		} else if steps[i].ExpectTokens == nil {
			return &FieldError{File: c.Path, Field: f + ".expect_tokens", Err: ErrMissing}
		}
	}
	b := len(rawReqs)
	reqs := make([]*sampler.Request, b)
	var buildErr error
	for i, raw := range rawReqs {
		f := fmt.Sprintf("requests[%d]", i)
		var sr samplerRequest
		if err := decodeStrict(c, f, raw, &sr); err != nil {
			return err
		}
		if sr.Params == nil {
			return &FieldError{File: c.Path, Field: f + ".params", Err: ErrMissing}
		}
		p := sampler.DefaultParams()
		if err := decodeStrict(c, f+".params", sr.Params, &p); err != nil {
			return err
		}
		r, err := sampler.NewRequest(p, vocab, sr.Prompt, sr.Output)
		if err != nil {
			buildErr = fmt.Errorf("%s: %w", f, err)
			break
		}
		r.Reserve(len(steps))
		reqs[i] = r
	}
	if want := steps[0].ExpectError; want != nil {
		if buildErr == nil {
			return c.Errorf("steps[0].expect_error", "parameters accepted, want an error containing %q", *want)
		}
		if !strings.Contains(strings.ToLower(buildErr.Error()), strings.ToLower(*want)) {
			return c.Errorf("steps[0].expect_error", "got error %q, want one containing %q", buildErr, *want)
		}
		return nil
	}
	if buildErr != nil {
		return c.Errorf("requests", "%v", buildErr)
	}
	processed := false
	for _, st := range steps {
		processed = processed || st.ExpectProcessed != nil
	}
	if !processed {
		return replaySampler(c, rawReqs, steps, vocab, false)
	}
	// Both pipelines: the one materializing the processed logits (checked
	// against expect_processed) and the fast one (tokens only).
	if err := replaySampler(c, rawReqs, steps, vocab, true); err != nil {
		return err
	}
	if err := replaySampler(c, rawReqs, steps, vocab, false); err != nil {
		return fmt.Errorf("without processed logits: %w", err)
	}
	return nil
}

// replaySampler runs the steps on fresh requests; with processed set it
// also compares expect_processed.
func replaySampler(c *Case, rawReqs []json.RawMessage, steps []samplerStep, vocab int, processed bool) error {
	b := len(rawReqs)
	reqs := make([]*sampler.Request, b)
	for i, raw := range rawReqs {
		var sr samplerRequest
		if err := decodeStrict(c, fmt.Sprintf("requests[%d]", i), raw, &sr); err != nil {
			return err
		}
		p := sampler.DefaultParams()
		if err := decodeStrict(c, fmt.Sprintf("requests[%d].params", i), sr.Params, &p); err != nil {
			return err
		}
		r, err := sampler.NewRequest(p, vocab, sr.Prompt, sr.Output)
		if err != nil {
			return c.Errorf(fmt.Sprintf("requests[%d]", i), "%v", err)
		}
		r.Reserve(len(steps))
		reqs[i] = r
	}
	s, err := sampler.New(sampler.Config{MaxBatch: b, Vocab: vocab, Processed: processed})
	if err != nil {
		return c.Errorf("vocab", "%v", err)
	}
	logits := make([]float32, b*vocab)
	out := make([]int32, b)
	for i, st := range steps {
		f := fmt.Sprintf("steps[%d]", i)
		lg, err := c.ResolveF32(f+".logits", st.Logits)
		if err != nil {
			return err
		}
		if err := checkShape(c, f+".logits", lg.Shape, b, vocab); err != nil {
			return err
		}
		if len(st.ExpectTokens) != b {
			return c.Errorf(f+".expect_tokens", "%d tokens for %d rows", len(st.ExpectTokens), b)
		}
		copy(logits, lg.Data)
		if err := s.Sample(logits, reqs, out); err != nil {
			return c.Errorf(f, "sample: %v", err)
		}
		for row, want := range st.ExpectTokens {
			if int(out[row]) != want {
				return c.Errorf(f+".expect_tokens", "row %d: got token %d, want %d", row, out[row], want)
			}
		}
		if processed && st.ExpectProcessed != nil {
			want, err := c.ResolveF32(f+".expect_processed", st.ExpectProcessed)
			if err != nil {
				return err
			}
			if err := checkShape(c, f+".expect_processed", want.Shape, b, vocab); err != nil {
				return err
			}
			if err := compareLogits(c, f+".expect_processed", logits, want.Data, vocab); err != nil {
				return err
			}
		}
		for row, tok := range st.ExpectTokens {
			if err := reqs[row].Append(tok); err != nil {
				return c.Errorf(f+".expect_tokens", "row %d: %v", row, err)
			}
		}
	}
	return nil
}

// decodeStrict decodes raw into v refusing unknown fields, so a misspelt
// parameter is an error naming it rather than a silent default.
func decodeStrict(c *Case, field string, raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return &FieldError{File: c.Path, Field: field, Err: err}
	}
	return nil
}

// checkShape requires a [rows, cols] tensor.
func checkShape(c *Case, field string, shape []int, rows, cols int) error {
	if len(shape) != 2 || shape[0] != rows || shape[1] != cols {
		return c.Errorf(field, "shape %v, want [%d %d]", shape, rows, cols)
	}
	return nil
}

// compareLogits compares got with want within processedAtol + processedRtol·|want|,
// with -inf (and +inf, NaN) positions equal.
func compareLogits(c *Case, field string, got, want []float32, vocab int) error {
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		ok := false
		switch {
		case math.IsNaN(w):
			ok = math.IsNaN(g)
		case math.IsInf(w, 0):
			ok = g == w
		default:
			ok = !math.IsNaN(g) && !math.IsInf(g, 0) && math.Abs(g-w) <= processedAtol+processedRtol*math.Abs(w)
		}
		if !ok {
			return c.Errorf(field, "row %d id %d: got %v, want %v", i/vocab, i%vocab, got[i], want[i])
		}
	}
	return nil
}
