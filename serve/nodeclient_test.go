package serve_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestOpenAINodeSDK runs the official OpenAI Node SDK (testdata/nodeclient,
// npm ci from the committed lock) against the server on the fake
// synthesizer: audio.speech.create non-streaming (wav), streaming (pcm
// chunks), SSE, and a 400. The audio it saved is checked here against the
// fake's tone, and with sox and ffprobe when they are installed.
func TestOpenAINodeSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("Node SDK test skipped in -short mode")
	}
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skip("node/npm not installed; skipping the OpenAI Node SDK test")
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "speech.mjs"} {
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

	t.Run("fake", func(t *testing.T) {
		_, url := startServer(t, &servetest.Fake{FrameTime: time.Millisecond}, serve.Config{})
		frames := map[string]int{
			"nonstream": servetest.FramesFor("Hello from the official OpenAI Node client."),
			"stream":    servetest.FramesFor("Streaming speech arrives in pieces as it is made."),
			"sse":       servetest.FramesFor("Server sent events carry base64 audio."),
		}
		runNodeSDK(t, node, dir, url, func(name string, got int) int { return frames[name] }, checkSamples)
	})
	t.Run("engine", func(t *testing.T) {
		// The real engine on synth:tiny with its codec: the frame count is
		// the model's (EOS or the cap), so each answer must hold whole
		// frames and the SSE usage must count the frames it carried.
		ts, _ := engineServer(t)
		runNodeSDK(t, node, dir, ts.URL, func(name string, got int) int {
			if got == 0 || got%1920 != 0 {
				return -1 // no whole number of frames: fail below
			}
			return got / 1920
		}, checkWholeFrames)
	})
}

// checkWholeFrames checks an engine answer's length only (its samples are
// the model's): wantN samples, a positive number of whole frames.
func checkWholeFrames(t *testing.T, what string, got []int16, wantN int) {
	t.Helper()
	if wantN <= 0 || len(got) != wantN {
		t.Fatalf("%s: %d samples, want a positive whole number of 1920-sample frames", what, len(got))
	}
}

// runNodeSDK runs speech.mjs (installed in dir) against the server at url
// and checks what it saved; wantFrames gives the frames each answer
// ("nonstream", "stream", "sse") must hold, from the samples it got.
func runNodeSDK(t *testing.T, node, dir, url string, wantFrames func(name string, gotSamples int) int, check func(t *testing.T, what string, got []int16, wantN int)) {
	t.Helper()
	outDir := t.TempDir()
	cmd := exec.Command(node, "speech.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OMNI_URL="+url, "OUT_DIR="+outDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node speech.mjs: %v\n%s", err, out)
	}
	t.Logf("node: %s", strings.TrimSpace(string(out)))

	var rep struct {
		Nonstream struct{ ContentType string }
		Stream    struct {
			Chunks      int
			ContentType string
		}
		SSE struct {
			Deltas int
			Usage  struct {
				OutputTokens int `json:"output_tokens"`
			}
		}
		Error struct {
			Thrown bool
			Status int
			Param  string
		}
		SpeedError nodeSDKError `json:"speedError"`
	}
	b, _ := os.ReadFile(filepath.Join(outDir, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	wavPath := filepath.Join(outDir, "nonstream.wav")
	rate, samples := parseWAV(t, read("nonstream.wav"))
	if rate != 24000 || rep.Nonstream.ContentType != "audio/wav" {
		t.Errorf("non-streaming: rate %d, type %q", rate, rep.Nonstream.ContentType)
	}
	check(t, "node non-streaming wav", samples, wantFrames("nonstream", len(samples))*1920)
	stream := s16(read("stream.pcm"))
	check(t, "node streaming pcm", stream, wantFrames("stream", len(stream))*1920)
	if rep.Stream.Chunks < 1 || rep.Stream.ContentType != "audio/pcm" {
		t.Errorf("streaming: %d chunks of %q, want audio/pcm chunks", rep.Stream.Chunks, rep.Stream.ContentType)
	}
	sse := s16(read("sse.pcm"))
	sseFrames := wantFrames("sse", len(sse))
	check(t, "node SSE pcm", sse, sseFrames*1920)
	if rep.SSE.Usage.OutputTokens != sseFrames || rep.SSE.Deltas < 1 {
		t.Errorf("SSE: %d deltas, usage output_tokens %d; want deltas and %d", rep.SSE.Deltas, rep.SSE.Usage.OutputTokens, sseFrames)
	}
	if !rep.Error.Thrown || rep.Error.Status != 400 || rep.Error.Param != "voice" {
		t.Errorf("unknown voice: SDK error %+v, want a thrown 400 with param voice", rep.Error)
	}
	checkNodeSpeed(t, s16(read("speed1.pcm")), s16(read("speed2.pcm")), rep.SpeedError, check)
	checkWithTools(t, wavPath, "wav", float64(len(samples))/24000)
}

// checkWithTools asks sox and ffprobe (when installed) what they make of an
// audio file: 24 kHz, one channel, the expected duration within 0.1 s.
func checkWithTools(t *testing.T, path, codec string, seconds float64) {
	t.Helper()
	if sox, err := exec.LookPath("sox"); err == nil && codec == "wav" {
		out, err := exec.Command(sox, "--i", path).CombinedOutput()
		if err != nil {
			t.Errorf("sox --i %s: %v\n%s", path, err, out)
		} else {
			s := string(out)
			if !strings.Contains(s, "Channels       : 1") || !strings.Contains(s, "Sample Rate    : 24000") {
				t.Errorf("sox --i says:\n%s", s)
			}
		}
		// sox --i reports the streaming header's sentinel length; decoding
		// the file counts what is really there (with a "premature EOF"
		// warning, which is the point of an unknown-length header).
		out, err = exec.Command(sox, path, "-n", "stat").CombinedOutput()
		want := fmt.Sprintf("Samples read: %d", int(seconds*24000+0.5))
		if err != nil || !strings.Contains(strings.Join(strings.Fields(string(out)), " "), want) {
			t.Errorf("sox %s -n stat: %v, want %q in:\n%s", path, err, want, out)
		}
	} else if err != nil {
		t.Logf("sox not installed; skipping its check")
	}
	ffprobe, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Logf("ffprobe not installed; skipping its check")
		return
	}
	// -count_packets decodes the container to count: the duration comes from
	// the stream itself, not from the (streaming) header.
	out, err := exec.Command(ffprobe, "-v", "error", "-select_streams", "a:0",
		"-show_entries", "stream=codec_name,sample_rate,channels:format=duration", "-of", "json", path).CombinedOutput()
	if err != nil {
		t.Errorf("ffprobe %s: %v\n%s", path, err, out)
		return
	}
	var pr struct {
		Streams []struct {
			CodecName  string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int
		}
		Format struct{ Duration string }
	}
	if err := json.Unmarshal(out, &pr); err != nil || len(pr.Streams) != 1 {
		t.Errorf("ffprobe output %s: %v", out, err)
		return
	}
	st := pr.Streams[0]
	want := map[string]string{"wav": "pcm_s16le", "mp3": "mp3"}[codec]
	if st.CodecName != want || st.SampleRate != "24000" || st.Channels != 1 {
		t.Errorf("ffprobe: %+v, want %s at 24000 Hz mono", st, want)
	}
	if d, err := strconv.ParseFloat(pr.Format.Duration, 64); err != nil || d < seconds-0.1 || d > seconds+0.1 {
		t.Errorf("ffprobe duration %q, want %.3f s ± 0.1", pr.Format.Duration, seconds)
	}
}
