package serve_test

import (
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestSpeechStreamWSLibraryVoice: a live-text session on a Base model
// speaks every sentence in a library voice named in session.config, and
// an unknown voice there is refused by name.
func TestSpeechStreamWSLibraryVoice(t *testing.T) {
	node, dir := wsClient(t)
	fake := &servetest.Fake{Model: servetest.BaseInfo(), FrameTime: time.Millisecond}
	voices := &servetest.Voices{}
	_, url := startServer(t, fake, serve.Config{Cloning: serve.CloneConfig{Voices: voices}})
	if resp, b := upload(t, url, [][2]string{{"name", "me"}, {"consent", "yes"}, {"ref_text", "A tone."},
		{"file", string(toneWAV(24000, 30000, 0.5))}}); resp.StatusCode != 201 {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	s := runLive(t, node, dir, url, `{"type":"session.config","voice":{"id":"me"},"response_format":"pcm","split_granularity":"sentence"}`,
		"Hello there. Yes.")
	if len(s.Errors) > 0 || len(s.Sentences) != 2 {
		t.Fatalf("session: errors %v, %d sentences; want 2 and none", s.Errors, len(s.Sentences))
	}
	for i, se := range s.Sentences {
		if f := servetest.FramesFor(se.Text); se.Frames != f || se.Bytes != f*1920*2 {
			t.Errorf("sentence %d %q: %d frames, %d bytes; want %d", i, se.Text, se.Frames, se.Bytes, f)
		}
	}
	if _, ref := lastRef(t, fake); ref.Samples != 30000 || ref.RefText != "A tone." {
		t.Errorf("the session's requests conditioned on %+v, want the uploaded clip", ref)
	}
	if p, _ := voices.Counts(); p != 1 {
		t.Errorf("%d encodings, want 1 (the upload)", p)
	}
	s = runLive(t, node, dir, url, `{"type":"session.config","voice":"nobody","response_format":"pcm"}`, "Hello.")
	if len(s.Errors) != 1 || len(s.Sentences) != 0 {
		t.Errorf("unknown voice: errors %q, %d sentences; want one error", s.Errors, len(s.Sentences))
	}
}
