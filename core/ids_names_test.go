package core

import (
	"slices"
	"testing"
)

// TestLanguageAndSpeakerNames: the names of the released CustomVoice tables
// (Qwen3TTSIDs), dialects left out of the languages.
func TestLanguageAndSpeakerNames(t *testing.T) {
	ids := Qwen3TTSIDs()
	langs := ids.LanguageNames()
	if langs[0] != "auto" || slices.Contains(langs, "beijing_dialect") || !slices.Contains(langs, "english") || !slices.Contains(langs, "chinese") {
		t.Errorf("languages %v: want auto first, english and chinese, no dialect", langs)
	}
	if !slices.IsSorted(langs[1:]) {
		t.Errorf("languages %v not sorted", langs)
	}
	sp := ids.SpeakerNames()
	if !slices.Contains(sp, "vivian") || !slices.Contains(sp, "dylan") || !slices.IsSorted(sp) {
		t.Errorf("speakers %v: want vivian and dylan, sorted", sp)
	}
}
