package testvectors

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/omni-tts/omni/sampler"
)

// runRNGExponential runs an "rng.exponential" case: successive Exponential
// calls on one generator, every value compared bitwise.
func runRNGExponential(c *Case, _ *Env) error {
	var seed int64
	if err := c.Decode("seed", &seed); err != nil {
		return err
	}
	var draws []int
	if err := c.Decode("draws", &draws); err != nil {
		return err
	}
	var expect []json.RawMessage
	if err := c.Decode("expect", &expect); err != nil {
		return err
	}
	if len(expect) != len(draws) {
		return c.Errorf("expect", "%d entries for %d draws", len(expect), len(draws))
	}
	g := sampler.NewGenerator(seed)
	for i, n := range draws {
		if n < 0 {
			return c.Errorf(fmt.Sprintf("draws[%d]", i), "negative length %d", n)
		}
		field := fmt.Sprintf("expect[%d]", i)
		want, err := c.ResolveF32(field, expect[i])
		if err != nil {
			return err
		}
		if len(want.Data) != n {
			return c.Errorf(field, "%d values for a draw of %d", len(want.Data), n)
		}
		got := make([]float32, n)
		g.Exponential(got)
		for j := range got {
			if math.Float32bits(got[j]) != math.Float32bits(want.Data[j]) {
				return c.Errorf(field, "first difference at index %d: got %v (%#08x), want %v (%#08x)",
					j, got[j], math.Float32bits(got[j]), want.Data[j], math.Float32bits(want.Data[j]))
			}
		}
	}
	return nil
}
