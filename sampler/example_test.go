package sampler_test

import (
	"fmt"

	"github.com/omni-tts/omni/sampler"
)

// Example samples two steps of one seeded request and one greedy request in
// a batch, appending each token to its request's history.
func Example() {
	const vocab = 5
	s, err := sampler.New(sampler.Config{MaxBatch: 2, Vocab: vocab})
	if err != nil {
		panic(err)
	}
	seed := int64(42)
	p := sampler.DefaultParams()
	p.Seed, p.TopK, p.Temperature = &seed, 2, 0.8
	random, err := sampler.NewRequest(p, vocab, nil, nil)
	if err != nil {
		panic(err)
	}
	g := sampler.DefaultParams()
	g.Temperature = 0
	greedy, _ := sampler.NewRequest(g, vocab, nil, nil)

	reqs := []*sampler.Request{random, greedy}
	out := make([]int32, 2)
	for step := 0; step < 2; step++ {
		logits := []float32{
			0.1, 2.0, 1.9, -1, 0, // row 0: top-2 keeps ids 1 and 2
			0.1, 2.0, 1.9, -1, 3, // row 1: argmax is id 4
		}
		if err := s.Sample(logits, reqs, out); err != nil {
			panic(err)
		}
		for i, r := range reqs {
			r.Append(int(out[i]))
		}
		fmt.Println(out[0] == 1 || out[0] == 2, out[1])
	}
	// Output:
	// true 4
	// true 4
}

// ExampleParams_Validate shows the error for a parameter vLLM refuses.
func ExampleParams_Validate() {
	p := sampler.DefaultParams()
	p.TopP = 1.5
	fmt.Println(p.Validate(3072))
	// Output: sampler: top_p 1.5 outside (0, 1]
}

// ExampleGenerator draws torch.Generator().manual_seed(0) followed by
// torch.empty(3).exponential_(generator=g) on the CPU.
func ExampleGenerator() {
	g := sampler.NewGenerator(0)
	q := make([]float32, 3)
	g.Exponential(q)
	fmt.Println(q)
	// Output: [3.5083263 1.2303847 0.6150441]
}
