package sampler

import (
	"fmt"
	"math"
	"sort"
)

// Processor is a per-request logits processor, run after the built-in ones
// (allowed ids, bad words, min_tokens, logit_bias) and before the penalties,
// as vLLM runs custom processors. Process modifies one row of logits in place
// given the request's output history; it must not allocate or keep either
// slice.
type Processor interface {
	Process(logits []float32, output []int32)
}

// Request is one stream's sampling state: its validated parameters in the
// float32 form vLLM's input batch stores, its prompt and output history (with
// output counts for the penalties), its generator and its processors. Create
// it with NewRequest; it is not safe for concurrent use.
type Request struct {
	params Params
	vocab  int

	greedy   bool
	temp     float32 // effective temperature (0 for greedy)
	topK     int     // 0 = off
	topP     float32 // 1 = off
	minP     float32 // 0 = off
	rep      float32 // 1 = off
	repInv   float32 // fp32(1/rep)
	freq     float32
	pres     float32
	penalize bool

	allowed    []int32 // sorted; nil = all
	stopIDs    []int32 // stop ids ∪ {eos}
	biasIDs    []int32
	biasVals   []float32
	badWords   [][]int32
	processors []Processor

	gen *Generator // own generator (seeded, non-greedy), else nil

	prompt   []int32
	output   []int32
	counts   []int32 // output occurrence counts (len vocab), when penalized
	inPrompt []bool  // prompt membership (len vocab), when penalized
}

// NewRequest validates p for a vocabulary of vocab ids and returns the
// request with the given prompt and output history (either may be nil; the
// slices are copied). A seeded, non-greedy request gets its own Generator.
func NewRequest(p Params, vocab int, prompt, output []int) (*Request, error) {
	if err := p.Validate(vocab); err != nil {
		return nil, err
	}
	r := &Request{params: p, vocab: vocab}
	t := p.EffectiveTemperature()
	r.greedy = t < samplingEps
	if !r.greedy {
		r.temp = float32(t)
		if p.TopK > 0 && p.TopK < vocab {
			r.topK = p.TopK
		}
		r.topP = float32(p.TopP)
		r.minP = float32(p.MinP)
		if p.Seed != nil && *p.Seed != -1 { // vLLM reads seed -1 as "no seed"
			r.gen = NewGenerator(*p.Seed)
		}
	} else {
		r.topP = 1
	}
	r.rep = float32(p.RepetitionPenalty)
	r.repInv = 1 / r.rep
	r.freq = float32(p.FrequencyPenalty)
	r.pres = float32(p.PresencePenalty)
	r.penalize = r.rep != 1 || r.freq != 0 || r.pres != 0
	if p.AllowedTokenIDs != nil {
		r.allowed = toInt32(p.AllowedTokenIDs)
		sort.Slice(r.allowed, func(i, j int) bool { return r.allowed[i] < r.allowed[j] })
	}
	r.stopIDs = toInt32(p.StopTokenIDs)
	if p.EOSTokenID != nil {
		r.stopIDs = append(r.stopIDs, int32(*p.EOSTokenID))
	}
	ids := make([]int, 0, len(p.LogitBias))
	for id := range p.LogitBias {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r.biasIDs = append(r.biasIDs, int32(id))
		r.biasVals = append(r.biasVals, float32(p.LogitBias[id]))
	}
	for _, w := range p.BadWordsTokenIDs {
		r.badWords = append(r.badWords, toInt32(w))
	}
	if r.penalize {
		r.counts = make([]int32, vocab)
		r.inPrompt = make([]bool, vocab)
	}
	for _, id := range prompt {
		if id < 0 || id >= vocab {
			return nil, fmt.Errorf("sampler: prompt_token_ids id %d outside [0, %d)", id, vocab)
		}
		r.prompt = append(r.prompt, int32(id))
		if r.penalize {
			r.inPrompt[id] = true
		}
	}
	for _, id := range output {
		if err := r.Append(id); err != nil {
			return nil, fmt.Errorf("sampler: output_token_ids: %w", err)
		}
	}
	return r, nil
}

// toInt32 copies ids into a new []int32.
func toInt32(ids []int) []int32 {
	if ids == nil {
		return nil
	}
	out := make([]int32, len(ids))
	for i, v := range ids {
		out[i] = int32(v)
	}
	return out
}

// Params returns the request's parameters as given.
func (r *Request) Params() Params { return r.params }

// Vocab is the vocabulary size the request was validated for.
func (r *Request) Vocab() int { return r.vocab }

// Greedy reports whether the request takes the argmax.
func (r *Request) Greedy() bool { return r.greedy }

// Generator returns the request's own generator, or nil when it uses the
// engine's (unseeded) or draws nothing (greedy).
func (r *Request) Generator() *Generator { return r.gen }

// Output returns the output history (do not modify it).
func (r *Request) Output() []int32 { return r.output }

// AddProcessor appends a per-request logits processor.
func (r *Request) AddProcessor(p Processor) { r.processors = append(r.processors, p) }

// Append adds a token to the output history (the token sampled, or a
// teacher-forced one). Growing the history may allocate; reserve capacity
// with Reserve to avoid it.
func (r *Request) Append(tok int) error {
	if tok < 0 || tok >= r.vocab {
		return fmt.Errorf("sampler: token %d outside [0, %d)", tok, r.vocab)
	}
	r.output = append(r.output, int32(tok))
	if r.penalize {
		r.counts[tok]++
	}
	return nil
}

// Reserve makes room for n more output tokens so Append does not allocate.
func (r *Request) Reserve(n int) {
	if cap(r.output)-len(r.output) < n {
		o := make([]int32, len(r.output), len(r.output)+n)
		copy(o, r.output)
		r.output = o
	}
}

// applyProcessors runs, on one row, every logits processor and penalty in
// vLLM's order: allowed ids, bad words, min_tokens, logit_bias, custom
// processors, then repetition, frequency and presence penalties.
func (r *Request) applyProcessors(x []float32, scratch []float32) {
	ninf := float32(math.Inf(-1))
	if r.allowed != nil {
		// Keep the allowed values, mask everything, put them back.
		for j, id := range r.allowed {
			scratch[j] = x[id]
		}
		for i := range x {
			x[i] = ninf
		}
		for j, id := range r.allowed {
			x[id] = scratch[j]
		}
	}
	out := r.output
	for _, w := range r.badWords {
		n := len(w)
		if n-1 > len(out) {
			continue
		}
		match := true
		for j := 0; j < n-1; j++ {
			if out[len(out)-(n-1)+j] != w[j] {
				match = false
				break
			}
		}
		if match {
			x[w[n-1]] = ninf
		}
	}
	if len(out) < r.params.MinTokens {
		for _, id := range r.stopIDs {
			x[id] = ninf
		}
	}
	for j, id := range r.biasIDs {
		x[id] += r.biasVals[j]
	}
	for _, p := range r.processors {
		p.Process(x, out)
	}
	if !r.penalize {
		return
	}
	// Repetition over prompt ∪ output, once per distinct id: the output
	// walk flips each id's count negative after scaling it, the prompt walk
	// clears inPrompt after scaling; both marks are restored afterwards.
	if r.rep != 1 {
		for _, id := range r.output {
			if c := r.counts[id]; c > 0 {
				x[id] *= r.repScale(x[id])
				r.counts[id] = -c
			}
		}
		for _, id := range r.prompt {
			if r.inPrompt[id] {
				r.inPrompt[id] = false
				if r.counts[id] == 0 {
					x[id] *= r.repScale(x[id])
				}
			}
		}
		for _, id := range r.output {
			if c := r.counts[id]; c < 0 {
				r.counts[id] = -c
			}
		}
		for _, id := range r.prompt {
			r.inPrompt[id] = true
		}
	}
	if r.freq != 0 || r.pres != 0 {
		for _, id := range r.output {
			c := r.counts[id]
			if c <= 0 {
				continue
			}
			x[id] -= r.freq * float32(c)
			x[id] -= r.pres
			r.counts[id] = -c
		}
		for _, id := range r.output {
			if c := r.counts[id]; c < 0 {
				r.counts[id] = -c
			}
		}
	}
}

// repScale is vLLM's CPU repetition scale: fp32(1/r) for a positive logit,
// r otherwise.
func (r *Request) repScale(v float32) float32 {
	if v > 0 {
		return r.repInv
	}
	return r.rep
}
