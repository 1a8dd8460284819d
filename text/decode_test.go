package text

import (
	"encoding/json"
	"os"
	"testing"
)

// TestDecodeMatchesHuggingFace replays testdata/decode.json: random id lists
// (single bytes that cut UTF-8 sequences, whole tokens, added tokens) and
// Hugging Face's decode of each (Rust tokenizers, skip_special_tokens off).
func TestDecodeMatchesHuggingFace(t *testing.T) {
	data, err := os.ReadFile("testdata/decode.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		IDs  []int32 `json:"ids"`
		Text string  `json:"text"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	loaded, built := tokenizers(t)
	for _, c := range cases {
		for _, tk := range []*Tokenizer{loaded, built} {
			if got, err := tk.Decode(c.IDs); err != nil || got != c.Text {
				t.Errorf("Decode(%v) = %+q (%v), want %+q", c.IDs, got, err, c.Text)
			}
		}
	}
	if _, err := built.Decode([]int32{151936}); err == nil {
		t.Error("Decode of an id outside the vocabulary accepted")
	}
}
