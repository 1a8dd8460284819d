package sampler

import (
	"fmt"
	"math"
)

// Params are one request's sampling parameters, with vLLM's SamplingParams
// names (as JSON tags) and defaults; the zero value is not the default, use
// DefaultParams.
type Params struct {
	// Temperature divides the logits; 0 means greedy. A value in (0, 0.01)
	// is raised to 0.01 (as vLLM does). Default 1.
	Temperature float64 `json:"temperature"`
	// TopK keeps the k largest logits (ties at the threshold kept); 0 or -1
	// (or ≥ vocab) disables it. Default 0.
	TopK int `json:"top_k"`
	// TopP keeps the smallest set of top tokens with mass ≥ p. Default 1.
	TopP float64 `json:"top_p"`
	// MinP drops tokens whose probability is below min_p times the largest.
	// Default 0.
	MinP float64 `json:"min_p"`
	// RepetitionPenalty divides positive (multiplies other) logits of tokens
	// seen in the prompt or the output. Default 1.
	RepetitionPenalty float64 `json:"repetition_penalty"`
	// FrequencyPenalty is subtracted once per occurrence in the output.
	// Default 0.
	FrequencyPenalty float64 `json:"frequency_penalty"`
	// PresencePenalty is subtracted from tokens present in the output.
	// Default 0.
	PresencePenalty float64 `json:"presence_penalty"`
	// Seed, when set, gives the request its own generator; -1 means unset,
	// as in vLLM. Default nil.
	Seed *int64 `json:"seed"`
	// MinTokens masks the stop ids and EOS while the output is shorter.
	// Default 0.
	MinTokens int `json:"min_tokens"`
	// MaxTokens bounds the output length (nil = no bound here); it is only
	// checked against MinTokens.
	MaxTokens *int `json:"max_tokens"`
	// StopTokenIDs are the ids that end the request (masked by MinTokens).
	StopTokenIDs []int `json:"stop_token_ids"`
	// EOSTokenID is the end-of-sequence id (masked by MinTokens), nil if none.
	EOSTokenID *int `json:"eos_token_id"`
	// LogitBias adds a bias to the logits of the given ids.
	LogitBias map[int]float64 `json:"logit_bias"`
	// AllowedTokenIDs, when non-nil, masks every other id; it must not be empty.
	AllowedTokenIDs []int `json:"allowed_token_ids"`
	// BadWordsTokenIDs are token sequences that must not be completed: the
	// last id of each is masked when the output ends with the others.
	BadWordsTokenIDs [][]int `json:"bad_words_token_ids"`
}

// DefaultParams returns vLLM's defaults: temperature 1, top_k 0, top_p 1,
// min_p 0, repetition_penalty 1, no other penalty, no seed.
func DefaultParams() Params {
	return Params{Temperature: 1, TopP: 1, RepetitionPenalty: 1}
}

// samplingEps is vLLM's _SAMPLING_EPS: a temperature below it is greedy.
const samplingEps = 1e-5

// minTemp is vLLM's _MAX_TEMP: a temperature in (0, minTemp) is raised to it.
const minTemp = 1e-2

// EffectiveTemperature is the temperature the sampler uses: 0 < T < 0.01
// becomes 0.01.
func (p *Params) EffectiveTemperature() float64 {
	if p.Temperature > 0 && p.Temperature < minTemp {
		return minTemp
	}
	return p.Temperature
}

// Greedy reports whether the request takes the argmax (temperature 0).
func (p *Params) Greedy() bool { return p.EffectiveTemperature() < samplingEps }

// finite reports whether f is neither NaN nor infinite.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Validate refuses what vLLM refuses, for a vocabulary of vocab ids, with an
// error naming the field and the value.
func (p *Params) Validate(vocab int) error {
	if vocab <= 0 {
		return fmt.Errorf("sampler: vocab %d must be positive", vocab)
	}
	switch {
	case !finite(p.Temperature) || p.Temperature < 0:
		return fmt.Errorf("sampler: temperature %v must be finite and >= 0", p.Temperature)
	case !(p.TopP > 0 && p.TopP <= 1):
		return fmt.Errorf("sampler: top_p %v outside (0, 1]", p.TopP)
	case p.TopK < -1:
		return fmt.Errorf("sampler: top_k %d must be -1 (disabled), 0 (disabled) or positive", p.TopK)
	case !(p.MinP >= 0 && p.MinP <= 1):
		return fmt.Errorf("sampler: min_p %v outside [0, 1]", p.MinP)
	case !finite(p.RepetitionPenalty) || p.RepetitionPenalty <= 0:
		return fmt.Errorf("sampler: repetition_penalty %v must be finite and > 0", p.RepetitionPenalty)
	case !(p.PresencePenalty >= -2 && p.PresencePenalty <= 2):
		return fmt.Errorf("sampler: presence_penalty %v outside [-2, 2]", p.PresencePenalty)
	case !(p.FrequencyPenalty >= -2 && p.FrequencyPenalty <= 2):
		return fmt.Errorf("sampler: frequency_penalty %v outside [-2, 2]", p.FrequencyPenalty)
	case p.MinTokens < 0:
		return fmt.Errorf("sampler: min_tokens %d must be >= 0", p.MinTokens)
	case p.MaxTokens != nil && *p.MaxTokens < 1:
		return fmt.Errorf("sampler: max_tokens %d must be >= 1", *p.MaxTokens)
	case p.MaxTokens != nil && p.MinTokens > *p.MaxTokens:
		return fmt.Errorf("sampler: min_tokens %d greater than max_tokens %d", p.MinTokens, *p.MaxTokens)
	}
	inVocab := func(field string, id int) error {
		if id < 0 || id >= vocab {
			return fmt.Errorf("sampler: %s id %d outside [0, %d)", field, id, vocab)
		}
		return nil
	}
	for _, id := range p.StopTokenIDs {
		if err := inVocab("stop_token_ids", id); err != nil {
			return err
		}
	}
	if p.EOSTokenID != nil {
		if err := inVocab("eos_token_id", *p.EOSTokenID); err != nil {
			return err
		}
	}
	for id, b := range p.LogitBias {
		if err := inVocab("logit_bias", id); err != nil {
			return err
		}
		if !finite(b) {
			return fmt.Errorf("sampler: logit_bias for id %d is %v, must be finite", id, b)
		}
	}
	if p.AllowedTokenIDs != nil && len(p.AllowedTokenIDs) == 0 {
		return fmt.Errorf("sampler: allowed_token_ids is empty")
	}
	for _, id := range p.AllowedTokenIDs {
		if err := inVocab("allowed_token_ids", id); err != nil {
			return err
		}
	}
	for i, w := range p.BadWordsTokenIDs {
		if len(w) == 0 {
			return fmt.Errorf("sampler: bad_words_token_ids[%d] is empty", i)
		}
		for _, id := range w {
			if err := inVocab("bad_words_token_ids", id); err != nil {
				return err
			}
		}
	}
	return nil
}
