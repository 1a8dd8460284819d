package sampler

import (
	"math"
	"strings"
	"testing"
)

func TestValidateRefusesWhatVLLMRefuses(t *testing.T) {
	four, zero := 4, 0
	eosBad := 17
	cases := []struct {
		name string
		mod  func(p *Params)
		want string // substring of the error
	}{
		{"negative temperature", func(p *Params) { p.Temperature = -0.1 }, "sampler: temperature -0.1"},
		{"NaN temperature", func(p *Params) { p.Temperature = math.NaN() }, "temperature NaN"},
		{"inf temperature", func(p *Params) { p.Temperature = math.Inf(1) }, "temperature +Inf"},
		{"top_p 0", func(p *Params) { p.TopP = 0 }, "top_p 0 outside (0, 1]"},
		{"top_p 1.5", func(p *Params) { p.TopP = 1.5 }, "sampler: top_p 1.5 outside (0, 1]"},
		{"top_p NaN", func(p *Params) { p.TopP = math.NaN() }, "top_p NaN"},
		{"top_k -2", func(p *Params) { p.TopK = -2 }, "top_k -2"},
		{"min_p -0.1", func(p *Params) { p.MinP = -0.1 }, "min_p -0.1 outside [0, 1]"},
		{"min_p 1.1", func(p *Params) { p.MinP = 1.1 }, "min_p 1.1"},
		{"repetition 0", func(p *Params) { p.RepetitionPenalty = 0 }, "repetition_penalty 0"},
		{"repetition inf", func(p *Params) { p.RepetitionPenalty = math.Inf(1) }, "repetition_penalty +Inf"},
		{"presence 2.5", func(p *Params) { p.PresencePenalty = 2.5 }, "presence_penalty 2.5 outside [-2, 2]"},
		{"frequency -3", func(p *Params) { p.FrequencyPenalty = -3 }, "frequency_penalty -3"},
		{"min_tokens -1", func(p *Params) { p.MinTokens = -1 }, "min_tokens -1"},
		{"min_tokens > max_tokens", func(p *Params) { p.MinTokens = 5; p.MaxTokens = &four }, "min_tokens 5 greater than max_tokens 4"},
		{"max_tokens 0", func(p *Params) { p.MaxTokens = &zero }, "max_tokens 0"},
		{"logit_bias id", func(p *Params) { p.LogitBias = map[int]float64{17: 1} }, "logit_bias id 17 outside [0, 17)"},
		{"logit_bias NaN", func(p *Params) { p.LogitBias = map[int]float64{3: math.NaN()} }, "logit_bias for id 3"},
		{"allowed empty", func(p *Params) { p.AllowedTokenIDs = []int{} }, "allowed_token_ids is empty"},
		{"allowed id", func(p *Params) { p.AllowedTokenIDs = []int{0, -1} }, "allowed_token_ids id -1"},
		{"stop id", func(p *Params) { p.StopTokenIDs = []int{99} }, "stop_token_ids id 99"},
		{"eos id", func(p *Params) { p.EOSTokenID = &eosBad }, "eos_token_id id 17"},
		{"bad word empty", func(p *Params) { p.BadWordsTokenIDs = [][]int{{1}, {}} }, "bad_words_token_ids[1] is empty"},
		{"bad word id", func(p *Params) { p.BadWordsTokenIDs = [][]int{{1, 40}} }, "bad_words_token_ids id 40"},
	}
	for _, c := range cases {
		p := DefaultParams()
		c.mod(&p)
		err := p.Validate(17)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	ok := DefaultParams()
	ok.TopK, ok.TopP, ok.MinP, ok.Temperature = -1, 1, 1, 0
	ok.PresencePenalty, ok.FrequencyPenalty = -2, 2
	ok.AllowedTokenIDs = []int{0, 16}
	if err := ok.Validate(17); err != nil {
		t.Errorf("boundary values refused: %v", err)
	}
}

func TestTemperatureClamp(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 0}, {1e-9, 0.01}, {0.005, 0.01}, {0.01, 0.01}, {0.7, 0.7}} {
		p := DefaultParams()
		p.Temperature = c.in
		if got := p.EffectiveTemperature(); got != c.want {
			t.Errorf("EffectiveTemperature(%v) = %v, want %v", c.in, got, c.want)
		}
		if g := p.Greedy(); g != (c.in == 0) {
			t.Errorf("Greedy(%v) = %v", c.in, g)
		}
	}
}

// plainValid is the validation table of docs/SAMPLING.md §1 written as one
// boolean expression per rule (the reference for the fuzz test).
func plainValid(t, topP, minP, rep, pres, freq float64, topK, minTokens int) bool {
	fin := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	return fin(t) && t >= 0 &&
		topP > 0 && topP <= 1 &&
		topK >= -1 &&
		minP >= 0 && minP <= 1 &&
		fin(rep) && rep > 0 &&
		pres >= -2 && pres <= 2 &&
		freq >= -2 && freq <= 2 &&
		minTokens >= 0
}

func FuzzValidate(f *testing.F) {
	f.Add(1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0, 0)
	f.Add(-0.0, 1e-300, 1.0, 1e-300, 2.0, -2.0, -1, 3)
	f.Add(math.NaN(), 0.0, -0.0, math.Inf(1), 2.0000001, 0.0, -2, -1)
	f.Fuzz(func(t *testing.T, temp, topP, minP, rep, pres, freq float64, topK, minTokens int) {
		p := DefaultParams()
		p.Temperature, p.TopP, p.MinP, p.RepetitionPenalty = temp, topP, minP, rep
		p.PresencePenalty, p.FrequencyPenalty, p.TopK, p.MinTokens = pres, freq, topK, minTokens
		err := p.Validate(17)
		if want := plainValid(temp, topP, minP, rep, pres, freq, topK, minTokens); (err == nil) != want {
			t.Fatalf("Validate(%+v) = %v, plain rules say valid=%v", p, err, want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "sampler: ") {
			t.Fatalf("error %q lacks the package prefix", err)
		}
		if err == nil {
			if _, err := NewRequest(p, 17, nil, nil); err != nil {
				t.Fatalf("NewRequest refused valid params: %v", err)
			}
		}
	})
}
