package serve_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/omni-tts/omni/serve"
)

// TestSpeechBatchClone: a batch to a Base model resolves each item's voice
// reference as a single request does: an item's ref_audio is encoded once
// for every item that repeats it, and an item whose clip is not audio
// fails alone, named items[i].ref_audio, while the others are spoken.
func TestSpeechBatchClone(t *testing.T) {
	_, voices, url := cloneServer(t, serve.Config{})
	clip := b64(toneWAV(24000, 24000, 0.5))
	body := fmt.Sprintf(`{"x_vector_only_mode":true,"response_format":"pcm","items":[`+
		`{"input":"One.","ref_audio":%q},{"input":"Two.","ref_audio":%q},{"input":"Three.","ref_audio":"bm90IGF1ZGlv"}]}`, clip, clip)
	resp, err := http.Post(url+"/v1/audio/speech/batch", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("batch: status %d", resp.StatusCode)
	}
	var out struct {
		Results []struct {
			Index int    `json:"index"`
			Audio string `json:"audio_data"`
			Error string `json:"error"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 3 {
		t.Fatalf("%d results, want 3", len(out.Results))
	}
	for i := 0; i < 2; i++ {
		if r := out.Results[i]; r.Error != "" || r.Audio == "" {
			t.Errorf("item %d: error %q, audio %d bytes: want audio", i, r.Error, len(r.Audio))
		}
	}
	if r := out.Results[2]; !strings.Contains(r.Error, "items[2].ref_audio") {
		t.Errorf("item 2 (not audio): error %q, want one naming items[2].ref_audio", r.Error)
	}
	if p, _ := voices.Counts(); p != 1 {
		t.Errorf("%d encodings for one clip in two items, want 1", p)
	}
}
