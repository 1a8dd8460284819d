package text

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// sentenceCases are text/testdata/sentences.json (testvectors/gen/segment):
// ICU's sentence boundaries of a multilingual corpus, and the cases where
// omni departs from ICU on purpose with the sentences worked by hand.
type sentenceCases struct {
	Reference string `json:"reference"`
	Cases     []struct {
		Name string   `json:"name"`
		Kind string   `json:"kind"`
		Text string   `json:"text"`
		ICU  []string `json:"icu"`
		Omni []string `json:"omni"`
	} `json:"cases"`
}

func loadSentenceCases(t testing.TB) sentenceCases {
	t.Helper()
	raw, err := os.ReadFile("testdata/sentences.json")
	if err != nil {
		t.Fatal(err)
	}
	var c sentenceCases
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("testdata/sentences.json: %v", err)
	}
	if len(c.Cases) == 0 {
		t.Fatal("testdata/sentences.json: no cases")
	}
	return c
}

// sentenceTexts returns the texts of Sentences(s).
func sentenceTexts(s string) []string {
	var out []string
	for _, sp := range Sentences(s) {
		out = append(out, s[sp.Start:sp.End])
	}
	return out
}

// TestSentencesICU: omni draws ICU's boundaries (Intl.Segmenter) on every
// "icu" case, and the hand-worked ones where it departs from ICU on purpose.
func TestSentencesICU(t *testing.T) {
	c := loadSentenceCases(t)
	t.Logf("reference: %s", c.Reference)
	for _, tc := range c.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			got := sentenceTexts(tc.Text)
			switch tc.Kind {
			case "icu":
				if !slices.Equal(got, tc.ICU) {
					t.Errorf("Sentences(%q) =\n %q\nICU:\n %q", tc.Text, got, tc.ICU)
				}
			case "differs":
				if !slices.Equal(got, tc.Omni) {
					t.Errorf("Sentences(%q) =\n %q\nwant (worked):\n %q", tc.Text, got, tc.Omni)
				}
				if slices.Equal(got, tc.ICU) {
					t.Errorf("Sentences(%q) equals ICU's %q: not a difference", tc.Text, tc.ICU)
				}
			default:
				t.Fatalf("kind %q unknown", tc.Kind)
			}
		})
	}
}
