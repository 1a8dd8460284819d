package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/serve/servetest"
	"github.com/omni-tts/omni/voice"
)

// installNodeClient copies testdata/nodeclient's package files and the
// named scripts to a temporary directory and installs the SDK there (npm
// ci from the committed lock); it skips the test without node and npm.
func installNodeClient(t *testing.T, scripts ...string) (node, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("Node SDK test skipped in -short mode")
	}
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skip("node/npm not installed; skipping the OpenAI Node SDK test")
	}
	dir = t.TempDir()
	for _, f := range append([]string{"package.json", "package-lock.json"}, scripts...) {
		b, err := os.ReadFile(filepath.Join("testdata", "nodeclient", f))
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

// engineBaseServer serves synth:tiny-base with its voice store (the
// model's voice encoder, a library in a temporary directory) for the
// client tests.
func engineBaseServer(t *testing.T) *httptest.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny-base", MaxBatch: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := host.OpenVoiceEncoder("synth:tiny-base", host.VoiceOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	lib, err := voice.NewLibrary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	voices, err := engine.NewVoices(enc, lib)
	if err != nil {
		t.Fatal(err)
	}
	syn, err := engine.New(e, engine.Options{Name: "omni", MaxNewTokens: 2048})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { defer close(ran); syn.Stopped(e.Run(ctx)) }()
	srv, err := serve.New(syn, serve.Config{Cloning: serve.CloneConfig{Voices: voices}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-ran
		e.Close()
		enc.Close()
	})
	return ts
}

// cloneReport mirrors clone.mjs's report.json.
type cloneReport struct {
	Created struct {
		ID, Object, Type, Name, Mode string
		CreatedAt                    int64 `json:"created_at"`
	}
	Voice struct {
		Bytes       int
		ContentType string
	}
	Ref struct {
		Bytes, Deltas int
		Usage         struct {
			OutputTokens int `json:"output_tokens"`
		}
	}
	Listed struct {
		Uploaded []struct{ ID, Name string } `json:"uploaded_voices"`
	}
	Deleted struct {
		ID      string
		Deleted bool
	}
	DeleteAgain, Gone struct {
		Thrown bool
		Status int
		Param  string
	}
}

// TestOpenAINodeSDKClone runs clone.mjs (the official OpenAI Node SDK:
// audio.voices.create and delete, audio.speech.create with voice {id} and
// with ref_audio) against a Base model: the fake (its audio is the tone)
// and synth:tiny-base (the library voice and the same clip as ref_audio
// make the same samples under one seed).
func TestOpenAINodeSDKClone(t *testing.T) {
	node, dir := installNodeClient(t, "clone.mjs")
	clip := toneWAV(16000, 32000, 0.4) // 2 s at 16 kHz
	clipPath := filepath.Join(t.TempDir(), "clip.wav")
	if err := os.WriteFile(clipPath, clip, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, url string) (cloneReport, []byte, []byte) {
		out := t.TempDir()
		cmd := exec.Command(node, "clone.mjs")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "OMNI_URL="+url, "OUT_DIR="+out, "CLIP="+clipPath)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node clone.mjs: %v\n%s", err, b)
		}
		t.Logf("node: %s", strings.TrimSpace(string(b)))
		var rep cloneReport
		b, _ = os.ReadFile(filepath.Join(out, "report.json"))
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("report.json: %v", err)
		}
		voicePCM, _ := os.ReadFile(filepath.Join(out, "voice.pcm"))
		refPCM, _ := os.ReadFile(filepath.Join(out, "ref.pcm"))
		c := rep.Created
		if c.ID != "node-voice" || c.Name != "node-voice" || c.Object != "audio.voice" || c.Type != "audio_sample" || c.Mode != "in_context" || c.CreatedAt <= 0 {
			t.Errorf("audio.voices.create returned %+v", c)
		}
		if len(rep.Listed.Uploaded) != 1 || rep.Listed.Uploaded[0].ID != "node-voice" {
			t.Errorf("listed %+v, want node-voice", rep.Listed.Uploaded)
		}
		if !rep.Deleted.Deleted || rep.Deleted.ID != "node-voice" {
			t.Errorf("audio.voices.delete returned %+v", rep.Deleted)
		}
		if d := rep.DeleteAgain; !d.Thrown || d.Status != 404 || d.Param != "name" {
			t.Errorf("deleting again: %+v, want a thrown 404 naming name", d)
		}
		if g := rep.Gone; !g.Thrown || g.Status != 400 || g.Param != "voice" {
			t.Errorf("speaking with a deleted voice: %+v, want a thrown 400 naming voice", g)
		}
		if rep.Voice.ContentType != "audio/pcm" || rep.Ref.Deltas < 1 || rep.Ref.Usage.OutputTokens*3840 != len(refPCM) {
			t.Errorf("voice %+v, ref %+v (%d bytes)", rep.Voice, rep.Ref, len(refPCM))
		}
		return rep, voicePCM, refPCM
	}
	t.Run("fake", func(t *testing.T) {
		fake := &servetest.Fake{Model: servetest.BaseInfo()}
		voices := &servetest.Voices{}
		_, url := startServer(t, fake, serve.Config{Cloning: serve.CloneConfig{Voices: voices}})
		_, voicePCM, refPCM := run(t, url)
		frames := min(servetest.FramesFor("Hello from the Node client, in a cloned voice."), 12)
		checkSamples(t, "voice {id}", s16(voicePCM), frames*1920)
		checkSamples(t, "ref_audio", s16(refPCM), frames*1920)
		if p, _ := voices.Counts(); p != 2 {
			t.Errorf("%d encodings, want 2 (the upload and the ref_audio request)", p)
		}
		if _, ref := lastRef(t, fake); ref.Samples != 48000 || ref.RefText != "A buzz of two seconds." {
			t.Errorf("the ref_audio request conditioned on %+v, want 48000 samples at 24 kHz and the transcript", ref)
		}
	})
	t.Run("engine", func(t *testing.T) {
		_, voicePCM, refPCM := run(t, engineBaseServer(t).URL)
		if len(voicePCM) == 0 || len(voicePCM)%3840 != 0 || !bytes.Equal(voicePCM, refPCM) {
			t.Errorf("library voice %d bytes, ref_audio %d bytes (equal %v): want the same whole frames",
				len(voicePCM), len(refPCM), bytes.Equal(voicePCM, refPCM))
		}
	})
}
