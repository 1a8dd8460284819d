package serve_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// toneWAV is a 16-bit mono WAV of n samples at rate: a 220 Hz sine at
// amplitude amp (0 makes silence).
func toneWAV(rate, n int, amp float64) []byte {
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
		w(int16(math.Round(amp * 32767 * math.Sin(2*math.Pi*220*float64(i)/float64(rate)))))
	}
	return b.Bytes()
}

// b64 is standard base64.
func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// cloneServer starts a server on a fake Base model with a fake voice store.
func cloneServer(t *testing.T, cfg serve.Config) (*servetest.Fake, *servetest.Voices, string) {
	t.Helper()
	fake := &servetest.Fake{Model: servetest.BaseInfo()}
	voices := &servetest.Voices{}
	cfg.Cloning.Voices = voices
	_, url := startServer(t, fake, cfg)
	return fake, voices, url
}

// speak posts body and reads the answer; it fails the test unless the
// status is want.
func speak(t *testing.T, url, body string, want int) []byte {
	t.Helper()
	resp := post(t, url, body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("POST %s: %d %s, want %d", truncateBody(body), resp.StatusCode, b, want)
	}
	return b
}

func truncateBody(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// metric reads one unlabelled sample of /metrics (-1 when absent).
func metric(t *testing.T, url, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(scrape(t, url))
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// lastRef is the fake store's summary of the clip the last request
// conditioned on.
func lastRef(t *testing.T, fake *servetest.Fake) (*serve.PreparedVoice, *servetest.Ref) {
	t.Helper()
	c := fake.LastRequest().Clone
	if c == nil {
		t.Fatalf("the synthesizer got no Clone")
	}
	ref, ok := c.Ref.(*servetest.Ref)
	if !ok {
		t.Fatalf("Clone.Ref is %T, want the fake store's *servetest.Ref", c.Ref)
	}
	return c, ref
}

func TestCloneRefAudio(t *testing.T) {
	fake, voices, url := cloneServer(t, serve.Config{})
	clip := toneWAV(24000, 24000, 0.5) // 1 s
	input := "Hello in my own voice."
	pcm := speak(t, url, fmt.Sprintf(`{"input":%q,"ref_audio":%q,"ref_text":"One second of tone.","response_format":"pcm","task_type":"Base"}`,
		input, b64(clip)), 200)
	checkSamples(t, "clone pcm", s16(pcm), servetest.FramesFor(input)*1920)
	pv, ref := lastRef(t, fake)
	if ref.Samples != 24000 || ref.RefText != "One second of tone." || ref.XVectorOnly || pv.Mode != serve.VoiceModeInContext {
		t.Errorf("prepared %+v from %+v, want 24000 samples, the transcript, in-context", pv, ref)
	}
	if math.Abs(float64(ref.Peak)-0.5) > 0.001 {
		t.Errorf("clip peak %g, want 0.5 (the WAV's amplitude)", ref.Peak)
	}

	// The same clip again, as a data URL: no encoding.
	speak(t, url, fmt.Sprintf(`{"input":"Again.","ref_audio":"data:audio/wav;base64,%s","ref_text":"One second of tone."}`, b64(clip)), 200)
	if p, _ := voices.Counts(); p != 1 {
		t.Errorf("%d encodings after a repeated clip, want 1", p)
	}
	// x-vector mode is another voice (another key); its transcript, if
	// any, is dropped.
	speak(t, url, fmt.Sprintf(`{"input":"X.","ref_audio":%q,"x_vector_only_mode":true}`, b64(clip)), 200)
	pv, ref = lastRef(t, fake)
	if !ref.XVectorOnly || pv.Mode != serve.VoiceModeXVector || ref.RefText != "" {
		t.Errorf("x_vector_only_mode: %+v %+v, want x-vector mode", pv, ref)
	}
	speak(t, url, fmt.Sprintf(`{"input":"X.","ref_audio":%q,"ref_text":"ignored","x_vector_only_mode":true}`, b64(clip)), 200)
	if p, _ := voices.Counts(); p != 2 {
		t.Errorf("%d encodings, want 2 (one per mode)", p)
	}
	// A 16 kHz clip of one second reaches the store as 24000 samples at
	// 24 kHz; URL-safe base64 without padding is taken.
	clip16 := toneWAV(16000, 16000, 0.5)
	speak(t, url, fmt.Sprintf(`{"input":"Y.","ref_audio":%q,"x_vector_only_mode":true}`, base64.RawURLEncoding.EncodeToString(clip16)), 200)
	if _, ref = lastRef(t, fake); ref.Samples != 24000 {
		t.Errorf("a 1 s clip at 16 kHz reached the store as %d samples, want 24000", ref.Samples)
	}
	for name, want := range map[string]float64{
		"omni_voice_encodes_total": 3, "omni_voice_cache_hits_total": 2, "omni_voice_cache_misses_total": 3,
		"omni_voice_cache_evictions_total": 0, "omni_voice_encode_seconds_count": 3, "omni_voice_cache_entries": 3,
		"omni_voice_cache_bytes": float64(servetest.PreparedBytes(24000, false) + 2*servetest.PreparedBytes(24000, true)),
	} {
		if got := metric(t, url, name); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
}

func TestCloneErrors(t *testing.T) {
	_, _, url := cloneServer(t, serve.Config{MaxInputChars: 40, Cloning: serve.CloneConfig{MaxClipBytes: 100 << 10}})
	ok := b64(toneWAV(24000, 24000, 0.5))
	for _, c := range []struct {
		body   string
		status int
		param  string
		msg    string
	}{
		{`{"input":"x"}`, 400, "ref_audio", "Base model"},
		{`{"input":"x","ref_audio":"","ref_text":"t"}`, 400, "ref_audio", "empty"},
		{`{"input":"x","ref_audio":7,"ref_text":"t"}`, 400, "ref_audio", "string"},
		{`{"input":"x","ref_audio":"!!!!","ref_text":"t"}`, 400, "ref_audio", "not base64"},
		{`{"input":"x","ref_audio":"http://127.0.0.1/a.wav","ref_text":"t"}`, 400, "ref_audio", "--ref-audio-urls"},
		{`{"input":"x","ref_audio":"file:///etc/passwd","ref_text":"t"}`, 400, "ref_audio", "only http(s) URLs"},
		{`{"input":"x","ref_audio":"data:audio/wav,abcd","ref_text":"t"}`, 400, "ref_audio", "not base64"},
		{`{"input":"x","ref_audio":"data:audio/wav;base64","ref_text":"t"}`, 400, "ref_audio", "comma"},
		{`{"input":"x","ref_audio":"` + b64([]byte("hello, this is no audio")) + `","ref_text":"t"}`, 400, "ref_audio", "not a WAV"},
		{`{"input":"x","ref_audio":"` + b64(toneWAV(24000, 2400, 0.5)) + `","ref_text":"t"}`, 400, "ref_audio", "shortest reference is 0.5 s"},
		{`{"input":"x","ref_audio":"` + b64(toneWAV(24000, 24000, 0)) + `","ref_text":"t"}`, 400, "ref_audio", "silent"},
		{`{"input":"x","ref_audio":"` + b64(toneWAV(1000, 31000, 0.5)) + `","ref_text":"t"}`, 400, "ref_audio", "bound is 30 s"},
		{`{"input":"x","ref_audio":"` + b64(toneWAV(24000, 60000, 0.5)) + `","ref_text":"t"}`, 413, "ref_audio", "102400"},
		{`{"input":"x","ref_text":"hi"}`, 400, "ref_text", "needs ref_audio"},
		{`{"input":"x","voice":"me","x_vector_only_mode":true}`, 400, "x_vector_only_mode", "needs ref_audio"},
		{`{"input":"x","ref_audio":"` + ok + `","x_vector_only_mode":false}`, 400, "ref_text", "in-context"},
		{`{"input":"x","ref_audio":"` + ok + `"}`, 400, "ref_text", "x_vector_only_mode true"},
		{`{"input":"x","ref_audio":"` + ok + `","ref_text":"` + strings.Repeat("w", 41) + `"}`, 413, "ref_text", "41 characters"},
		{`{"input":"x","ref_audio":"` + ok + `","x_vector_only_mode":"yes"}`, 400, "x_vector_only_mode", "boolean"},
		{`{"input":"x","voice":"me","ref_audio":"` + ok + `"}`, 400, "voice", "give one"},
		{`{"input":"x","voice":"nobody"}`, 400, "voice", "unknown voice"},
		{`{"input":"x","voice":{"id":"../etc/passwd"}}`, 400, "voice", "starts with"},
		{`{"input":"x","voice":{"id":"a/b"}}`, 400, "voice", "not a letter"},
		{`{"input":"x","speaker":"nobody"}`, 400, "speaker", "unknown voice"},
		{`{"input":"x","ref_audio":"` + ok + `","ref_text":"t","task_type":"CustomVoice"}`, 400, "task_type", "serves Base"},
		{`{"input":"x","ref_audio":"` + ok + `","speaker_embedding":[0.1]}`, 400, "speaker_embedding", "not supported"},
	} {
		resp := post(t, url, c.body)
		e := decodeError(t, resp)
		if resp.StatusCode != c.status || e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.msg) {
			p := "<nil>"
			if e.Error.Param != nil {
				p = *e.Error.Param
			}
			t.Errorf("%s: %d param %s %q, want %d param %s containing %q", truncateBody(c.body), resp.StatusCode, p, e.Error.Message, c.status, c.param, c.msg)
		}
	}

	// A model that is not Base refuses each clone field by name.
	_, url2 := startServer(t, &servetest.Fake{}, serve.Config{})
	for _, f := range []string{`"ref_audio":"` + ok + `"`, `"ref_text":"hi"`, `"x_vector_only_mode":true`} {
		resp := post(t, url2, `{"input":"x",`+f+`}`)
		e := decodeError(t, resp)
		field := strings.Trim(strings.SplitN(f, ":", 2)[0], `"`)
		if resp.StatusCode != 400 || e.Error.Param == nil || *e.Error.Param != field || !strings.Contains(e.Error.Message, "needs a Base model") {
			t.Errorf("CustomVoice model, %s: %d %q, want 400 naming %s", f, resp.StatusCode, e.Error.Message, field)
		}
	}
	if _, err := serve.New(&servetest.Fake{Model: servetest.BaseInfo()}, serve.Config{}); err == nil {
		t.Errorf("New on a Base model without Cloning.Voices succeeded")
	}
}

// form builds a multipart body from fields (a "file" value is the clip).
func form(t *testing.T, fields [][2]string) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		var w io.Writer
		var err error
		if f[0] == "file" || f[0] == "audio_sample" {
			w, err = mw.CreateFormFile(f[0], "clip.wav")
		} else {
			w, err = mw.CreateFormField(f[0])
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, f[1])
	}
	mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

func upload(t *testing.T, url string, fields [][2]string) (*http.Response, []byte) {
	t.Helper()
	ct, body := form(t, fields)
	resp, err := http.Post(url+"/v1/audio/voices", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
}

func do(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
}

// listed is GET /v1/audio/voices.
type listed struct {
	Voices   []string `json:"voices"`
	Uploaded []struct {
		Name      string  `json:"name"`
		Mode      string  `json:"mode"`
		Duration  float64 `json:"duration"`
		Created   string  `json:"created"`
		CreatedAt int64   `json:"created_at"`
		Consent   string  `json:"consent"`
		RefText   string  `json:"ref_text"`
	} `json:"uploaded_voices"`
}

func TestVoiceLibrary(t *testing.T) {
	fake, voices, url := cloneServer(t, serve.Config{})
	clip := string(toneWAV(24000, 36000, 0.5)) // 1.5 s
	resp, b := upload(t, url, [][2]string{{"name", "me"}, {"consent", "I agree to have my voice cloned."},
		{"ref_text", "A tone of one and a half seconds."}, {"file", clip}})
	if resp.StatusCode != 201 {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	var l listed
	r, b := do(t, "GET", url+"/v1/audio/voices")
	if err := json.Unmarshal(b, &l); err != nil || r.StatusCode != 200 || len(l.Uploaded) != 1 {
		t.Fatalf("list: %d %s (%v)", r.StatusCode, b, err)
	}
	u := l.Uploaded[0]
	if u.Name != "me" || u.Mode != "in_context" || u.Duration != 1.5 || u.CreatedAt <= 0 || u.Created == "" ||
		u.Consent != "I agree to have my voice cloned." || u.RefText != "A tone of one and a half seconds." || len(l.Voices) != 1 || l.Voices[0] != "me" {
		t.Errorf("listed %+v, voices %q", l.Uploaded, l.Voices)
	}

	// The voice by name and in OpenAI's custom-voice shape: no encoding,
	// and no library read either (the upload is in memory).
	for _, v := range []string{`"me"`, `{"id":"me"}`} {
		speak(t, url, `{"input":"Hello.","response_format":"pcm","voice":`+v+`}`, 200)
		if _, ref := lastRef(t, fake); ref.Samples != 36000 || ref.RefText != "A tone of one and a half seconds." {
			t.Errorf("voice %s: the synthesizer got %+v, want the uploaded clip (36000 samples)", v, ref)
		}
	}
	if p, loads := voices.Counts(); p != 1 || loads != 0 {
		t.Errorf("%d encodings, %d library reads; want 1 and 0", p, loads)
	}

	// Taken names, and every malformed upload, refused by name.
	ok := [][2]string{{"name", "you"}, {"consent", "yes"}, {"file", clip}, {"x_vector_only", "true"}}
	with := func(k, v string) [][2]string {
		out := [][2]string{}
		for _, f := range ok {
			if f[0] != k {
				out = append(out, f)
			}
		}
		if v != "-" {
			out = append(out, [2]string{k, v})
		}
		return out
	}
	for _, c := range []struct {
		fields [][2]string
		status int
		param  string
	}{
		{with("name", "me"), 409, "name"},
		{with("name", "-"), 400, "name"},
		{with("name", "a/b"), 400, "name"},
		{with("name", strings.Repeat("n", 65)), 400, "name"},
		{with("consent", "-"), 400, "consent"},
		{with("consent", strings.Repeat("c", 2001)), 413, "consent"},
		{with("file", "-"), 400, "file"},
		{with("file", ""), 400, "file"},
		{with("file", "RIFF0000WAVEjunk"), 400, "file"},
		{with("file", string(toneWAV(24000, 24000, 0))), 400, "file"},
		{with("x_vector_only", "maybe"), 400, "x_vector_only"},
		{with("x_vector_only", "false"), 400, "ref_text"},
		{with("x_vector_only", "-"), 400, "ref_text"},
		{with("colour", "blue"), 400, "colour"},
		{with("type", "prompt"), 400, "type"},
		{append(with("name", "-"), [2]string{"name", "a"}, [2]string{"name", "b"}), 400, "name"},
	} {
		resp, b := upload(t, url, c.fields)
		var e errorBody
		json.Unmarshal(b, &e)
		if resp.StatusCode != c.status || e.Error.Param == nil || *e.Error.Param != c.param {
			t.Errorf("upload %v: %d %s, want %d naming %s", c.fields[len(c.fields)-1][0], resp.StatusCode, b, c.status, c.param)
		}
	}
	// vLLM-Omni's field names: audio_sample, x_vector_only_mode.
	resp, b = upload(t, url, [][2]string{{"name", "xv"}, {"consent", "yes"}, {"audio_sample", clip}, {"x_vector_only_mode", "true"}, {"type", "audio_sample"}})
	if resp.StatusCode != 201 || !strings.Contains(string(b), `"mode":"x_vector"`) || !strings.Contains(string(b), `"id":"xv","object":"audio.voice"`) {
		t.Errorf("vLLM-Omni form: %d %s", resp.StatusCode, b)
	}

	// Not multipart: 415; too large: 413.
	r2, err := http.Post(url+"/v1/audio/voices", "application/json", strings.NewReader(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if e := decodeError(t, r2); r2.StatusCode != 415 {
		t.Errorf("JSON upload: %d %q, want 415", r2.StatusCode, e.Error.Message)
	}
	big := strings.Repeat("x", 10<<20+1)
	if resp, b := upload(t, url, with("file", big)); resp.StatusCode != 413 {
		t.Errorf("11 MiB upload: %d %s, want 413", resp.StatusCode, b)
	}

	// DELETE: 200, then 404; the voice is gone from requests too.
	if r, b := do(t, "DELETE", url+"/v1/audio/voices/me"); r.StatusCode != 200 {
		t.Errorf("DELETE me: %d %s", r.StatusCode, b)
	}
	if r, b := do(t, "DELETE", url+"/v1/audio/voices/me"); r.StatusCode != 404 || !strings.Contains(string(b), `"voice_not_found"`) {
		t.Errorf("DELETE me again: %d %s, want 404", r.StatusCode, b)
	}
	if r, b := do(t, "DELETE", url+"/v1/audio/voices/.hidden"); r.StatusCode != 400 {
		t.Errorf("DELETE .hidden: %d %s, want 400", r.StatusCode, b)
	}
	resp2 := post(t, url, `{"input":"x","voice":"me"}`)
	if e := decodeError(t, resp2); resp2.StatusCode != 400 || !strings.Contains(e.Error.Message, "unknown voice") {
		t.Errorf("speech with a deleted voice: %d %q", resp2.StatusCode, e.Error.Message)
	}

	// A model that is not Base has no library to add to or delete from.
	_, url2 := startServer(t, &servetest.Fake{}, serve.Config{})
	if resp, b := upload(t, url2, ok); resp.StatusCode != 400 || !strings.Contains(string(b), "cloning_unavailable") {
		t.Errorf("upload to a CustomVoice model: %d %s", resp.StatusCode, b)
	}
	if r, b := do(t, "DELETE", url2+"/v1/audio/voices/me"); r.StatusCode != 400 {
		t.Errorf("DELETE on a CustomVoice model: %d %s", r.StatusCode, b)
	}
}

// TestVoiceLibraryLoads checks that a library voice not in memory (added
// by another replica, or before a restart) is read from the store once.
func TestVoiceLibraryLoads(t *testing.T) {
	voices := &servetest.Voices{}
	pv, _ := voices.Prepare(t.Context(), serve.VoiceClip{Samples: make([]float32, 24000), XVectorOnly: true})
	if err := voices.Save(serve.VoiceEntry{Name: "old", Mode: pv.Mode}, pv); err != nil {
		t.Fatal(err)
	}
	fake := &servetest.Fake{Model: servetest.BaseInfo()}
	_, url := startServer(t, fake, serve.Config{Cloning: serve.CloneConfig{Voices: voices}})
	for range 3 {
		speak(t, url, `{"input":"x","voice":"old"}`, 200)
	}
	if p, loads := voices.Counts(); p != 1 || loads != 1 {
		t.Errorf("%d encodings, %d library reads; want 1 (the setup's) and 1", p, loads)
	}
	if h, m, l := metric(t, url, "omni_voice_cache_hits_total"), metric(t, url, "omni_voice_cache_misses_total"), metric(t, url, "omni_voice_library_loads_total"); h != 2 || m != 1 || l != 1 {
		t.Errorf("hits %g misses %g loads %g, want 2, 1, 1", h, m, l)
	}
}

// TestVoiceCacheEvicts bounds the cache at two voices' bytes: a third
// evicts the least recently used, which costs an encoding when it returns.
func TestVoiceCacheEvicts(t *testing.T) {
	one := servetest.PreparedBytes(24000, true)
	_, voices, url := cloneServer(t, serve.Config{Cloning: serve.CloneConfig{CacheBytes: 2*one + 1}})
	clips := make([]string, 3)
	for i := range clips {
		clips[i] = b64(toneWAV(24000, 24000, 0.2+0.1*float64(i)))
	}
	use := func(i int) {
		speak(t, url, fmt.Sprintf(`{"input":"x","ref_audio":%q,"x_vector_only_mode":true}`, clips[i]), 200)
	}
	use(0)
	use(1)
	use(0) // 0 is now the most recent
	use(2) // evicts 1
	use(0) // a hit
	if p, _ := voices.Counts(); p != 3 {
		t.Errorf("%d encodings, want 3", p)
	}
	use(1) // evicted: encoded again, evicting 2
	if p, _ := voices.Counts(); p != 4 {
		t.Errorf("%d encodings after the evicted clip returned, want 4", p)
	}
	if ev, b := metric(t, url, "omni_voice_cache_evictions_total"), metric(t, url, "omni_voice_cache_bytes"); ev != 2 || b != float64(2*one) {
		t.Errorf("evictions %g, bytes %g; want 2 and %d", ev, b, 2*one)
	}
}

// TestCloneConcurrentMissesEncodeOnce sends one new clip from many clients
// at once: one encoding serves them all.
func TestCloneConcurrentMissesEncodeOnce(t *testing.T) {
	release := make(chan struct{})
	var arrived sync.Once
	in := make(chan struct{})
	fake := &servetest.Fake{Model: servetest.BaseInfo()}
	voices := &servetest.Voices{Prepared: func(serve.VoiceClip) error {
		arrived.Do(func() { close(in) })
		<-release
		return nil
	}}
	_, url := startServer(t, fake, serve.Config{Cloning: serve.CloneConfig{Voices: voices}})
	clip := b64(toneWAV(24000, 24000, 0.5))
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(url+"/v1/audio/speech", "application/json",
				strings.NewReader(fmt.Sprintf(`{"input":"x","ref_audio":%q,"ref_text":"t","response_format":"pcm"}`, clip)))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes[i] = resp.StatusCode
			}
		}()
	}
	<-in
	waitFor(t, "every request to miss", func() bool { return metric(t, url, "omni_voice_cache_misses_total") == 1 })
	close(release)
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d: status %d", i, c)
		}
	}
	if p, _ := voices.Counts(); p != 1 {
		t.Errorf("%d encodings for 8 concurrent requests of one clip, want 1", p)
	}
}

// TestRefAudioURL fetches ref_audio from an http URL when allowed.
func TestRefAudioURL(t *testing.T) {
	clip := toneWAV(24000, 24000, 0.5)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/clip.wav":
			w.Write(clip)
		case "/big.wav":
			w.Write(make([]byte, 200<<10))
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	fake, _, url := cloneServer(t, serve.Config{Cloning: serve.CloneConfig{RefAudioURLs: true, MaxClipBytes: 100 << 10}})
	speak(t, url, `{"input":"x","ref_audio":"`+files.URL+`/clip.wav","x_vector_only_mode":true}`, 200)
	if _, ref := lastRef(t, fake); ref.Samples != 24000 {
		t.Errorf("fetched clip reached the store as %d samples, want 24000", ref.Samples)
	}
	for _, c := range []struct {
		path   string
		status int
		msg    string
	}{{"/missing.wav", 400, "404"}, {"/big.wav", 413, "102400"}} {
		resp := post(t, url, `{"input":"x","ref_audio":"`+files.URL+c.path+`","x_vector_only_mode":true}`)
		if e := decodeError(t, resp); resp.StatusCode != c.status || !strings.Contains(e.Error.Message, c.msg) {
			t.Errorf("%s: %d %q, want %d mentioning %s", c.path, resp.StatusCode, e.Error.Message, c.status, c.msg)
		}
	}
}

// TestVoiceUploadWhileDraining: a draining server encodes no new voice.
func TestVoiceUploadWhileDraining(t *testing.T) {
	s, err := serve.New(&servetest.Fake{Model: servetest.BaseInfo()}, serve.Config{Cloning: serve.CloneConfig{Voices: &servetest.Voices{}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Drain(0)
	ct, body := form(t, [][2]string{{"name", "me"}, {"consent", "yes"}, {"x_vector_only", "true"}, {"file", string(toneWAV(24000, 24000, 0.5))}})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/audio/voices", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"draining"`) {
		t.Errorf("upload while draining: %d %s, want 503 draining", rec.Code, rec.Body)
	}
}
