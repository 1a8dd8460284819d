package core

import (
	"slices"
	"strings"
)

// LanguageNames returns the languages a request may name, sorted, "auto"
// first: the model's table without the dialects (a dialect comes with its
// speaker).
func (s *SpecialIDs) LanguageNames() []string {
	out := []string{"auto"}
	var rest []string
	for k := range s.Languages {
		if !strings.Contains(k, "dialect") {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// SpeakerNames returns the model's preset speakers, sorted (none for a
// model without a speaker table).
func (s *SpecialIDs) SpeakerNames() []string {
	out := make([]string, 0, len(s.Speakers))
	for k := range s.Speakers {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
