package engine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/voice"
)

// baseServer serves synth:tiny-base through the adapter with its voice
// store (the model's voice encoder, a library in a temporary directory).
type baseServer struct {
	ts  *httptest.Server
	e   host.Engine
	enc *host.VoiceEncoder
	lib *voice.Library
}

func startBase(t *testing.T) *baseServer {
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
	return &baseServer{ts: ts, e: e, enc: enc, lib: lib}
}

// clipWAV is a 16-bit mono WAV at 16 kHz of secs seconds: a vowel-like
// buzz at f0 Hz with a slow tremolo (what matters is that two clips
// differ and neither is silent).
func clipWAV(f0, secs float64) []byte {
	const rate = 16000
	n := int(secs * rate)
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(1))
	w(uint32(rate))
	w(uint32(2 * rate))
	w(uint16(2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(2 * n))
	for i := range n {
		t := float64(i) / rate
		x := 0.0
		for h := 1; h <= 5; h++ {
			x += math.Sin(2*math.Pi*f0*float64(h)*t) / float64(h)
		}
		w(int16(6000 * x * (0.7 + 0.3*math.Sin(2*math.Pi*3*t))))
	}
	return b.Bytes()
}

func (b *baseServer) speak(t *testing.T, body string) []byte {
	t.Helper()
	resp, err := http.Post(b.ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %.120s: %d %s", body, resp.StatusCode, out)
	}
	return out
}

// direct runs the request the CLI's path makes of the same clip
// (host.VoiceEncoder.PrepareClip on the file, the voice's text input, the
// seed as serve applies it: the talker's, the predictor's its successor)
// and returns its PCM as s16le, as the served pcm format writes it.
func (b *baseServer) direct(t *testing.T, clip []byte, refText string, xv bool, input string, seed int64, frames int) []byte {
	t.Helper()
	vo, err := b.enc.PrepareClip("direct", "clip.wav", clip, refText, xv)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.e.Request(vo.TextInput(core.TextInput{Text: input}))
	if err != nil {
		t.Fatal(err)
	}
	ps := seed + 1
	r.Talker.Seed, r.Predictor.Seed, r.MaxFrames = &seed, &ps, frames
	st, err := b.e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		ev, err := st.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == core.EventChunk {
			out = audio.AppendS16LE(out, ev.Chunk.PCM)
		}
		if ev.Kind == core.EventEnd {
			break
		}
	}
	return out
}

// TestCloneThroughServe: on synth:tiny-base a ref_audio request (in
// context and x-vector only) answers what the CLI's path makes of the same
// file, sample for sample; another clip makes other audio (the reference
// conditions the speech); an uploaded library voice answers what its clip
// did as ref_audio; a library voice of another model is refused naming
// voice.
func TestCloneThroughServe(t *testing.T) {
	b := startBase(t)
	clipA, clipB := clipWAV(140, 2), clipWAV(230, 2)
	const refText = "A buzz of two seconds."
	const input = "Hello in a borrowed voice."
	req := func(clip []byte, extra string) string {
		return fmt.Sprintf(`{"input":%q,"ref_audio":"data:audio/wav;base64,%s","response_format":"pcm","seed":5,"max_new_tokens":10%s}`,
			input, base64.StdEncoding.EncodeToString(clip), extra)
	}
	icl := b.speak(t, req(clipA, fmt.Sprintf(`,"ref_text":%q`, refText)))
	if want := b.direct(t, clipA, refText, false, input, 5, 10); !bytes.Equal(icl, want) || len(icl) == 0 {
		t.Errorf("in-context: served %d bytes, the direct path %d (equal: %v)", len(icl), len(want), bytes.Equal(icl, want))
	}
	xv := b.speak(t, req(clipA, `,"x_vector_only_mode":true`))
	if want := b.direct(t, clipA, "", true, input, 5, 10); !bytes.Equal(xv, want) || len(xv) == 0 {
		t.Errorf("x-vector: served %d bytes, the direct path %d (equal: %v)", len(xv), len(want), bytes.Equal(xv, want))
	}
	if other := b.speak(t, req(clipB, `,"x_vector_only_mode":true`)); bytes.Equal(other, xv) {
		t.Errorf("two different reference clips made the same audio: the reference is ignored")
	}

	// Upload clip A as "me", then speak with it by name: the same audio.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("name", "me")
	mw.WriteField("consent", "The speaker agreed.")
	mw.WriteField("ref_text", refText)
	fw, _ := mw.CreateFormFile("file", "a.wav")
	fw.Write(clipA)
	mw.Close()
	resp, err := http.Post(b.ts.URL+"/v1/audio/voices", mw.FormDataContentType(), &form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.Contains(string(body), `"mode":"in_context"`) {
		t.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	if v, err := b.lib.Get("me"); err != nil || v.Consent != "The speaker agreed." || v.RefText != refText {
		t.Fatalf("library voice me: %+v, %v", v, err)
	}
	byName := b.speak(t, fmt.Sprintf(`{"input":%q,"voice":{"id":"me"},"response_format":"pcm","seed":5,"max_new_tokens":10}`, input))
	if !bytes.Equal(byName, icl) {
		t.Errorf("library voice me: %d bytes, not the %d its clip made as ref_audio", len(byName), len(icl))
	}

	// A voice prepared for another model.
	alien, err := b.enc.PrepareClip("alien", "a.wav", clipB, "", true)
	if err != nil {
		t.Fatal(err)
	}
	alien.Model.Digest = strings.Repeat("0", 64)
	if err := b.lib.Add(alien, false); err != nil {
		t.Fatal(err)
	}
	resp, err = http.Post(b.ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(`{"input":"x","voice":"alien"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), `"param":"voice"`) || !strings.Contains(string(body), "prepared for") {
		t.Errorf("a voice of another model: %d %s, want 400 naming voice", resp.StatusCode, body)
	}
}

// TestCloneLongInput: an input of several segments speaks every segment
// in the cloned voice (each segment's request carries the clone; the
// reference is primed once, the later segments continue its decoder
// state), ending with speech.audio.done.
func TestCloneLongInput(t *testing.T) {
	b := startBase(t)
	var long strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "This is sentence number %d of a long text that goes on. ", i)
	}
	body := fmt.Sprintf(`{"input":%q,"ref_audio":"%s","ref_text":"A buzz of two seconds.","response_format":"pcm","stream_format":"sse","max_new_tokens":3,"seed":1}`,
		strings.TrimSpace(long.String()), base64.StdEncoding.EncodeToString(clipWAV(140, 2)))
	out := string(b.speak(t, body))
	starts, dones := strings.Count(out, `"type":"speech.segment.start"`), strings.Count(out, `"type":"speech.segment.done"`)
	if starts < 2 || starts != dones || !strings.Contains(out, `"type":"speech.audio.done"`) || strings.Contains(out, "speech.audio.error") {
		t.Errorf("%d segment starts, %d dones, audio.done %v; want several segments, each ended, and the reply done",
			starts, dones, strings.Contains(out, `"type":"speech.audio.done"`))
	}
}
