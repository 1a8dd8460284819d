package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// baseFuzzInfo is a Base model for the clone fuzzers.
var baseFuzzInfo = ModelInfo{Name: "omni", ModelType: "Base", Languages: []string{"English"}, SampleRate: SampleRate, MaxNewTokens: 100}

// refDecode is the fuzzers' reference decoding of ref_audio, written
// apart from decodeRefAudio: strip a "data:…;base64," prefix, drop ASCII
// whitespace, pad to a multiple of 4, and try the standard then the URL
// alphabet of encoding/base64.
func refDecode(s string) ([]byte, bool) {
	if len(s) >= 5 && strings.EqualFold(s[:5], "data:") {
		i := strings.IndexByte(s, ',')
		if i < 0 || !strings.HasSuffix(strings.ToLower(s[:i]), ";base64") {
			return nil, false
		}
		s = s[i+1:]
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' }), "")
	s = strings.TrimRight(s, "=")
	s += strings.Repeat("=", (4-len(s)%4)%4)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, true
	}
	if b, err := base64.URLEncoding.DecodeString(s); err == nil {
		return b, true
	}
	return nil, false
}

// FuzzDecodeClone checks a Base model's requests: any body either decodes
// to exactly one voice reference (a valid library name, an allowed URL, or
// a clip within the bound that the reference decoding gives byte for
// byte) in a consistent mode, or is refused with a typed error.
func FuzzDecodeClone(f *testing.F) {
	clip := base64.StdEncoding.EncodeToString([]byte("RIFF\x00\x00\x00\x00WAVEfmt "))
	for _, s := range []string{
		`{"input":"x","ref_audio":"` + clip + `","ref_text":"hi"}`,
		`{"input":"x","ref_audio":"data:audio/wav;base64,` + clip + `"}`,
		`{"input":"x","ref_audio":"DATA:audio/wav;BASE64,` + clip[:7] + `\n` + clip[7:] + `","x_vector_only_mode":true}`,
		`{"input":"x","ref_audio":"` + strings.NewReplacer("+", "-", "/", "_").Replace(clip) + `","x_vector_only_mode":false,"ref_text":" "}`,
		`{"input":"x","ref_audio":"https://example.com/a.wav"}`, `{"input":"x","ref_audio":"ftp://x"}`,
		`{"input":"x","voice":{"id":"me"}}`, `{"input":"x","speaker":"a.b-c_d"}`, `{"input":"x","voice":"me","ref_audio":"AAAA"}`,
		`{"input":"x","ref_audio":"====="}`, `{"input":"x","ref_audio":"A"}`, `{"input":"x","ref_text":"t"}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, urls bool) {
		lim := requestLimits{Info: baseFuzzInfo, DefaultFormat: FormatWAV, MaxInputChars: 64, MaxClipBytes: 256, RefAudioURLs: urls}
		p, err := decodeSpeech(body, lim)
		if err != nil {
			switch err.(type) {
			case *FieldError, *TooLongError, *modelError:
			default:
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		c := p.Clone
		if c == nil {
			t.Fatalf("a Base model's request decoded without a voice reference")
		}
		n := 0
		for _, set := range []bool{c.Voice != "", len(c.Clip) > 0, c.URL != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("voice %q, %d clip bytes, URL %q: want exactly one", c.Voice, len(c.Clip), c.URL)
		}
		var raw map[string]json.RawMessage
		json.Unmarshal(body, &raw)
		var ref string
		json.Unmarshal(raw["ref_audio"], &ref)
		switch {
		case c.Voice != "":
			if CheckVoiceName(c.Voice) != nil || c.RefText != "" || c.XVectorOnly {
				t.Fatalf("library voice %q with ref_text %q, x-vector %v", c.Voice, c.RefText, c.XVectorOnly)
			}
		case c.URL != "":
			l := strings.ToLower(c.URL)
			if !urls || c.URL != ref || !(strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) {
				t.Fatalf("accepted URL %q (allowed %v)", c.URL, urls)
			}
		default:
			want, ok := refDecode(ref)
			if !ok || !bytes.Equal(want, c.Clip) || len(c.Clip) > 256 {
				t.Fatalf("ref_audio %q decoded to %q, the reference %q (ok %v)", ref, c.Clip, want, ok)
			}
		}
		if c.Voice == "" {
			if c.XVectorOnly != (c.RefText == "") || (!c.XVectorOnly && strings.TrimSpace(c.RefText) == "") {
				t.Fatalf("mode x-vector %v with ref_text %q", c.XVectorOnly, c.RefText)
			}
			if utf8.RuneCountInString(c.RefText) > 64 {
				t.Fatalf("accepted ref_text of %d characters", utf8.RuneCountInString(c.RefText))
			}
		}
	})
}

// FuzzBase64Forms checks decodeBase64 against encoding/base64's encoders:
// every alphabet, padded or not, wrapped in lines or not, decodes back to
// the bytes.
func FuzzBase64Forms(f *testing.F) {
	f.Add([]byte("RIFF"))
	f.Add([]byte{0xfb, 0xff, 0xbf})
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			s := enc.EncodeToString(data)
			for _, form := range []string{s, wrap(s, 76), " " + wrap(s, 4) + "\r\n"} {
				got, err := decodeBase64(form, 1<<20)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("decodeBase64(%q) = %q, %v; want %q", form, got, err, data)
				}
			}
		}
	})
}

// wrap breaks s into lines of n characters.
func wrap(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s[i:min(i+n, len(s))])
	}
	return b.String()
}

// fuzzVoices is a Voices that prepares anything and keeps nothing (the
// upload fuzzer checks the form handling, not a store).
type fuzzVoices struct{}

func (fuzzVoices) Prepare(ctx context.Context, c VoiceClip) (*PreparedVoice, error) {
	return &PreparedVoice{Mode: VoiceModeXVector, Seconds: c.Seconds(), Bytes: 1}, nil
}
func (fuzzVoices) Save(VoiceEntry, *PreparedVoice) error                    { return nil }
func (fuzzVoices) Load(string) (*PreparedVoice, error)                      { return nil, ErrVoiceNotFound }
func (fuzzVoices) List() ([]VoiceEntry, error)                              { return nil, nil }
func (fuzzVoices) Delete(string) error                                      { return ErrVoiceNotFound }
func (baseSynth) Info() ModelInfo                                           { return baseFuzzInfo }
func (baseSynth) Start(context.Context, SpeechRequest) (AudioStream, error) { return nil, ErrDraining }
func (baseSynth) Load() Load                                                { return Load{} }
func (baseSynth) Health() error                                             { return nil }

// baseSynth is drainingSynth's Base model.
type baseSynth struct{}

// FuzzVoiceUpload posts arbitrary multipart bodies to POST
// /v1/audio/voices: the answer is 201 or a documented refusal in OpenAI's
// error shape, never a panic or a 500.
func FuzzVoiceUpload(f *testing.F) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.SetBoundary("fuzzboundary")
	mw.WriteField("name", "me")
	mw.WriteField("consent", "yes")
	mw.WriteField("ref_text", "hello")
	w, _ := mw.CreateFormFile("file", "a.wav")
	w.Write([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\xc0\x5d\x00\x00\x80\xbb\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"))
	mw.Close()
	f.Add(b.Bytes())
	f.Add([]byte("--fuzzboundary\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nme\r\n--fuzzboundary--\r\n"))
	f.Add([]byte("--fuzzboundary\r\n\r\n\r\n--fuzzboundary--"))
	s, err := New(baseSynth{}, Config{MaxInputChars: 64, Cloning: CloneConfig{Voices: fuzzVoices{}, MaxClipBytes: 4096}})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/audio/voices", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=fuzzboundary")
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 201:
			return
		case 400, 409, 413, 415:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if !strings.HasPrefix(rec.Body.String(), `{"error":{"message":`) {
			t.Fatalf("body %q is not an OpenAI error", rec.Body)
		}
	})
}
