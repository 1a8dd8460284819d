package serve_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// wsSummary is what testdata/wsclient/live.mjs prints.
type wsSummary struct {
	Events    []string `json:"events"`
	Sentences []struct {
		Index, Utterance int
		Text, Format     string
		Rate, Bytes      int
		Frames           int
		EndReason        string `json:"endReason"`
	} `json:"sentences"`
	Errors             []string `json:"errors"`
	AudioBeforeDone    bool     `json:"audioBeforeDone"`
	TextToFirstAudioMS *float64 `json:"textToFirstAudioMs"`
	FirstTextToAudioMS *float64 `json:"firstTextToAudioMs"`
	Total              *int     `json:"total"`
}

// wsClient installs the npm ws client (testdata/wsclient, npm ci from the
// committed lock) into a temporary directory and returns node and it.
func wsClient(t *testing.T) (node, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("npm ws client test skipped in -short mode")
	}
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skip("node/npm not installed; skipping the WebSocket client test")
	}
	dir = t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "live.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "wsclient", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ci := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	ci.Dir = dir
	if out, err := ci.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	return node, dir
}

// runLive runs live.mjs against base (http://host:port) and parses its summary.
func runLive(t *testing.T, node, dir, base, config, text string) wsSummary {
	t.Helper()
	url := "ws" + strings.TrimPrefix(base, "http") + "/v1/audio/speech/stream"
	cmd := exec.Command(node, "live.mjs", url, config, text, "20")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node live.mjs: %v\n%s", err, out)
	}
	var s wsSummary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("live.mjs output %q: %v", out, err)
	}
	return s
}

// TestSpeechStreamWS: the npm ws client sends text word by word; each
// sentence is spoken as soon as the next one begins, before input.done;
// every sentence arrives between its audio.start and audio.done with
// exactly its frames of s16le; session.done counts them. On the fake (its
// frame count is a function of the text) and on synth:tiny's engine.
func TestSpeechStreamWS(t *testing.T) {
	node, dir := wsClient(t)
	text := "Hello there. This is live text, sent word by word! Does it speak before the end? Yes."
	want := []string{"Hello there.", "This is live text, sent word by word!", "Does it speak before the end?", "Yes."}
	check := func(t *testing.T, s wsSummary, frames func(string) int) {
		t.Helper()
		if len(s.Errors) > 0 {
			t.Fatalf("server errors: %v", s.Errors)
		}
		var got []string
		for i, se := range s.Sentences {
			got = append(got, se.Text)
			if se.Index != i || se.Format != "pcm" || se.Rate != 24000 || se.EndReason == "" {
				t.Errorf("sentence %d: %+v", i, se)
			}
			if f := frames(se.Text); se.Frames != f || se.Bytes != f*1920*2 {
				t.Errorf("sentence %d %q: %d frames, %d bytes; want %d frames, %d bytes", i, se.Text, se.Frames, se.Bytes, f, f*1920*2)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("sentences %q, want %q", got, want)
		}
		if !s.AudioBeforeDone {
			t.Error("no audio before input.done")
		}
		if s.Total == nil || *s.Total != len(want) || s.Events[len(s.Events)-1] != "session.done" {
			t.Errorf("session.done total %v, last event %q; want %d, session.done", s.Total, s.Events[len(s.Events)-1], len(want))
		}
		// order: audio.start, binary…, audio.done per sentence
		open := false
		for _, e := range s.Events {
			switch e {
			case "audio.start":
				if open {
					t.Fatal("audio.start inside a sentence")
				}
				open = true
			case "binary":
				if !open {
					t.Fatal("audio outside a sentence")
				}
			case "audio.done":
				open = false
			}
		}
		if s.TextToFirstAudioMS != nil {
			t.Logf("text to first audio: %.0f ms from the word completing sentence 0, %.0f ms from the first word", *s.TextToFirstAudioMS, *s.FirstTextToAudioMS)
		}
	}
	t.Run("fake", func(t *testing.T) {
		_, url := startServer(t, &servetest.Fake{FrameTime: time.Millisecond}, serve.Config{})
		s := runLive(t, node, dir, url, `{"type":"session.config","voice":"vivian","response_format":"pcm","split_granularity":"sentence"}`, text)
		check(t, s, servetest.FramesFor)
	})
	t.Run("engine", func(t *testing.T) {
		ts, _ := engineServer(t)
		s := runLive(t, node, dir, ts.URL, `{"type":"session.config","voice":"vivian","seed":4,"max_new_tokens":6,"min_tokens":6}`, text)
		check(t, s, func(string) int { return 6 })
	})
	t.Run("token", func(t *testing.T) {
		// the text enters the running generation word by word: one
		// utterance, its audio before input.done
		ts, _ := engineServer(t)
		s := runLive(t, node, dir, ts.URL, `{"type":"session.config","voice":"vivian","seed":4,"max_new_tokens":40,"split_granularity":"token"}`, text)
		if len(s.Errors) > 0 {
			t.Fatalf("server errors: %v", s.Errors)
		}
		if len(s.Sentences) != 1 || !s.AudioBeforeDone || s.Total == nil || *s.Total != 1 {
			t.Fatalf("token mode: %d utterances, audio before input.done %v, total %v; want 1, true, 1", len(s.Sentences), s.AudioBeforeDone, s.Total)
		}
		u := s.Sentences[0]
		if u.Frames == 0 || u.Bytes != u.Frames*1920*2 || !strings.HasPrefix(text, u.Text) {
			t.Errorf("utterance %+v: want whole frames of audio, its first words a prefix of the text", u)
		}
		t.Logf("token mode: %d frames, ended %s; first audio %.0f ms after the first word was sent", u.Frames, u.EndReason, *s.FirstTextToAudioMS)
	})
	t.Run("refusals", func(t *testing.T) {
		_, url := startServer(t, &servetest.Fake{FrameTime: time.Millisecond}, serve.Config{})
		for _, c := range []struct{ config, want string }{
			{`{"type":"input.text","text":"hi"}`, "session.config"},
			{`{"type":"session.config","split_granularity":"clause"}`, "split_granularity"},
			{`{"type":"session.config","voice":"nobody"}`, "voice"},
			{`{"type":"session.config","response_format":"mp3"}`, "response_format"},
			{`{"type":"session.config","split_granularity":"token"}`, "not offered"}, // the fake takes no live text
		} {
			s := runLive(t, node, dir, url, c.config, "Hi.")
			if len(s.Errors) == 0 || !strings.Contains(s.Errors[0], c.want) {
				t.Errorf("config %s: errors %q, want one naming %q", c.config, s.Errors, c.want)
			}
		}
	})
}
