package core

import "testing"

func TestApplySamplingSetsOnlyGivenFields(t *testing.T) {
	r := NewRequest([]int32{1})
	before := r
	temp, k, seed, ps := 0.5, 7, int64(42), int64(43)
	r.ApplySampling(Sampling{Temperature: &temp, PredictorTopK: &k, Seed: &seed, PredictorSeed: &ps})
	if r.Talker.Temperature != 0.5 || r.Predictor.TopK != 7 || *r.Talker.Seed != 42 || *r.Predictor.Seed != 43 {
		t.Fatalf("given fields: talker %+v predictor %+v", r.Talker, r.Predictor)
	}
	if r.Talker.TopK != before.Talker.TopK || r.Talker.TopP != before.Talker.TopP || r.Predictor.Temperature != before.Predictor.Temperature ||
		r.Talker.RepetitionPenalty != before.Talker.RepetitionPenalty {
		t.Fatalf("fields not given changed: talker %+v predictor %+v, were %+v %+v", r.Talker, r.Predictor, before.Talker, before.Predictor)
	}
	seed = 1
	if *r.Talker.Seed != 42 {
		t.Fatalf("the request shares the caller's seed variable")
	}
}
