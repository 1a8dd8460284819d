package core

// Sampling holds sampling overrides for a request, one field per setting
// a user may choose (a flag of omni run and omni say, a field of the
// speech API); nil keeps the request's value (the released defaults
// NewRequest and TextRequest set). Request.ApplySampling sets them, the one
// place a front end writes sampling parameters on a request.
type Sampling struct {
	// Codebook 0 (the talker).
	Temperature       *float64
	TopK              *int
	TopP              *float64
	MinP              *float64
	RepetitionPenalty *float64
	MinTokens         *int
	Seed              *int64
	// Codebooks 1..15 (the code predictor).
	PredictorTemperature *float64
	PredictorTopK        *int
	PredictorTopP        *float64
	PredictorSeed        *int64
}

// ApplySampling sets every non-nil field of s on r. Values are checked when
// the request is submitted (Engine.Submit names the bad one).
func (r *Request) ApplySampling(s Sampling) {
	set(&r.Talker.Temperature, s.Temperature)
	set(&r.Talker.TopK, s.TopK)
	set(&r.Talker.TopP, s.TopP)
	set(&r.Talker.MinP, s.MinP)
	set(&r.Talker.RepetitionPenalty, s.RepetitionPenalty)
	set(&r.Talker.MinTokens, s.MinTokens)
	if s.Seed != nil {
		r.Talker.Seed = Seed(*s.Seed)
	}
	set(&r.Predictor.Temperature, s.PredictorTemperature)
	set(&r.Predictor.TopK, s.PredictorTopK)
	set(&r.Predictor.TopP, s.PredictorTopP)
	if s.PredictorSeed != nil {
		r.Predictor.Seed = Seed(*s.PredictorSeed)
	}
}

// set copies *v to *dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
