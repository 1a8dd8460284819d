package testvectors

import "testing"

// TestCommittedSuites replays every committed suite of the kinds this
// package's engine parts implement; any failure fails the test.
func TestCommittedSuites(t *testing.T) {
	for _, kind := range []string{"rng.exponential", "sampler", "text", "prompt"} {
		t.Run(kind, func(t *testing.T) {
			rep, err := Run([]string{"suites"}, Options{Kind: kind}, &Env{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status != Pass {
					t.Errorf("%s %s: %s", r.Status, r.Name, r.Message)
				}
			}
			min := map[string]int{"rng.exponential": 10, "sampler": 40, "text": 300, "prompt": 90}[kind]
			if rep.Passed < min {
				t.Errorf("%d %s cases passed, want at least %d", rep.Passed, kind, min)
			}
			if rep.Failed != 0 {
				t.Errorf("summary %q", rep.Summary())
			}
		})
	}
}
