package sampler

import (
	"math"
	"testing"
)

func TestQwen3TTSTalkerContract(t *testing.T) {
	c := DefaultQwen3TTS()
	if c.Talker.Temperature != 0.9 || c.Talker.TopK != 50 || c.Talker.RepetitionPenalty != 1.05 ||
		c.Predictor.Temperature != 0.9 || c.Predictor.TopK != 50 || c.EOS != 2150 || c.Talker.MinTokens != 2 {
		t.Fatalf("defaults %+v differ from generation_config.json", c)
	}
	// Greedy so the processed logits decide the token directly.
	c.Talker.Temperature = 0
	r, err := c.TalkerRequest(c.Talker)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := New(Config{MaxBatch: 1, Vocab: 3072, Processed: true})
	x := make([]float32, 3072)
	out := make([]int32, 1)
	fill := func() {
		for i := range x {
			x[i] = float32(i%7) * 0.1
		}
		x[3000] = 50 // a suppressed id (2048..3071, not EOS)
		x[2150] = 40 // EOS
		x[17] = 30
	}
	// Frames 0 and 1: EOS masked (min_tokens 2), 3000 always masked → 17.
	for frame := 0; frame < 2; frame++ {
		fill()
		if err := s.Sample(x, []*Request{r}, out); err != nil {
			t.Fatal(err)
		}
		if out[0] != 17 {
			t.Fatalf("frame %d: token %d, want 17", frame, out[0])
		}
		for i := 2048; i < 3072; i++ {
			if !math.IsInf(float64(x[i]), -1) {
				t.Fatalf("frame %d: id %d = %v, want -inf", frame, i, x[i])
			}
		}
		// Repetition over earlier codebook-0 ids only: 17 was emitted once
		// before frame 1, so at frame 1 it is 30·fp32(1/1.05).
		if frame == 1 {
			if want := float32(30) * (1 / float32(1.05)); x[17] != want {
				t.Fatalf("frame 1: id 17 = %v, want %v", x[17], want)
			}
		}
		r.Append(int(out[0]))
	}
	// Frame 2: EOS allowed and largest.
	fill()
	if err := s.Sample(x, []*Request{r}, out); err != nil {
		t.Fatal(err)
	}
	if out[0] != 2150 {
		t.Fatalf("frame 2: token %d, want EOS 2150", out[0])
	}
}

func TestQwen3TTSPredictorAndConfig(t *testing.T) {
	c := DefaultQwen3TTS()
	seed := int64(4)
	c.Predictor.Seed = &seed
	r, err := c.PredictorRequest(c.Predictor)
	if err != nil {
		t.Fatal(err)
	}
	if r.Vocab() != 2048 || r.Generator() == nil {
		t.Fatalf("predictor request vocab %d, generator %v", r.Vocab(), r.Generator())
	}
	// 15 sub-steps on one generator draw 15·2048 elements.
	s, _ := New(Config{MaxBatch: 1, Vocab: 2048})
	x := make([]float32, 2048)
	out := make([]int32, 1)
	for i := 0; i < 15; i++ {
		if err := s.Sample(x, []*Request{r}, out); err != nil {
			t.Fatal(err)
		}
	}
	want := NewGenerator(4)
	want.Advance(15 * 2048)
	a, _ := r.Generator().MarshalBinary()
	b, _ := want.MarshalBinary()
	if string(a) != string(b) {
		t.Error("predictor generator did not advance by 15·2048 elements")
	}
	bad := DefaultQwen3TTS()
	bad.EOS = 4000
	if _, err := bad.TalkerRequest(bad.Talker); err == nil {
		t.Error("TalkerRequest with EOS 4000 = nil error")
	}
}
