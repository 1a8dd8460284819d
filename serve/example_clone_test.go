package serve_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// ExampleCloneConfig serves a Base model (the fake, with the fake voice
// store), adds a voice from a clip, and speaks with it by name and with the
// clip itself as ref_audio.
func ExampleCloneConfig() {
	s, err := serve.New(&servetest.Fake{Model: servetest.BaseInfo()},
		serve.Config{Cloning: serve.CloneConfig{Voices: &servetest.Voices{}}})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	clip := toneWAV(24000, 24000, 0.5) // one second of a 220 Hz tone

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("name", "me")
	mw.WriteField("consent", "I am the speaker and agree to be cloned.")
	mw.WriteField("ref_text", "One second of tone.")
	fw, _ := mw.CreateFormFile("file", "me.wav")
	fw.Write(clip)
	mw.Close()
	resp, err := http.Post(ts.URL+"/v1/audio/voices", mw.FormDataContentType(), &form)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("add:", resp.StatusCode)

	for _, body := range []string{
		`{"input":"Hello","voice":{"id":"me"},"response_format":"pcm"}`,
		`{"input":"Hello","ref_audio":"data:audio/wav;base64,` + base64.StdEncoding.EncodeToString(clip) +
			`","ref_text":"One second of tone.","response_format":"pcm"}`,
	} {
		resp, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println("speak:", resp.StatusCode, len(b)/2, "samples")
	}
	// Output:
	// add: 201
	// speak: 200 5760 samples
	// speak: 200 5760 samples
}
