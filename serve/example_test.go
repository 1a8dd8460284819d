package serve_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// ExampleNew serves the fake synthesizer and asks for a streamed WAV, as the
// curl line in docs/SERVE.md does.
func ExampleNew() {
	s, err := serve.New(&servetest.Fake{}, serve.Config{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json",
		strings.NewReader(`{"model":"omni","input":"Hello","voice":"vivian","response_format":"wav"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// The fake makes 3 frames for one word: 44 header bytes + 3×1920 samples × 2 bytes.
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"), len(b), resp.Trailer.Get("X-Omni-End-Reason"))
	// Output: 200 audio/wav 11564 eos
}
