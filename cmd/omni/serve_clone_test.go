package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeCloneFlagBounds: the cloning flags out of their bounds are
// usage errors naming the flag, before any model loads.
func TestServeCloneFlagBounds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--fake", "--voice-cache-bytes", "0"}, "serve: --voice-cache-bytes 0, want at least 1"},
		{[]string{"serve", "--fake", "--max-clip-bytes", "0"}, "serve: --max-clip-bytes 0 outside [1, 1073741824]"},
		{[]string{"serve", "--fake", "--max-clip-seconds", "0.1"}, "serve: --max-clip-seconds 0.1 outside [0.5, 600]"},
		{[]string{"serve", "--fake", "--max-clip-seconds", "NaN"}, "serve: --max-clip-seconds NaN outside [0.5, 600]"},
		{[]string{"serve", "--fake-base"}, "serve: --fake-base needs --fake"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, errb.String(), exitUsage, tc.want)
		}
	}
}

// TestServeClonesOnBase runs omni serve on synth:tiny-base: a speech
// request with ref_audio (as docs/SERVE.md's curl line sends it) answers a
// WAV of whole frames, an upload lands in --voice-dir as NAME.voice, and
// SIGTERM still drains to exit 0.
func TestServeClonesOnBase(t *testing.T) {
	dir := t.TempDir()
	url, stderr, done := startServe(t, []string{"serve", "--model", "synth:tiny-base", "--listen", "127.0.0.1:0", "--max-new-tokens", "20",
		"--voice-dir", dir, "--grace", "10s"})
	clip := sineWAV(16000, 24000) // 1.5 s
	resp, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(
		`{"model":"omni","input":"Hello","ref_audio":"data:audio/wav;base64,`+base64.StdEncoding.EncodeToString(clip)+`","ref_text":"A tone.","response_format":"wav"}`))
	if err != nil {
		t.Fatal(err)
	}
	wav, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(wav) <= 44 || string(wav[:4]) != "RIFF" || (len(wav)-44)%(1920*2) != 0 {
		t.Errorf("ref_audio speech: status %d, %d bytes (%.80q): want a WAV of whole 1920-sample frames", resp.StatusCode, len(wav), wav)
	}

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("name", "me")
	mw.WriteField("consent", "I agree.")
	mw.WriteField("x_vector_only", "true")
	fw, _ := mw.CreateFormFile("file", "me.wav")
	fw.Write(clip)
	mw.Close()
	resp, err = http.Post(url+"/v1/audio/voices", mw.FormDataContentType(), &form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.Contains(string(body), `"mode":"x_vector"`) {
		t.Errorf("upload: %d %s, want 201 in x-vector mode", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(dir, "me.voice")); err != nil {
		t.Errorf("the upload is not in --voice-dir: %v", err)
	}

	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("omni serve after SIGTERM: exit %d: %s", code, tail(stderr.String()))
		}
	case <-time.After(time.Minute):
		t.Fatal("omni serve did not exit after SIGTERM")
	}
}

// sineWAV is a 16-bit mono WAV of n samples of a 200 Hz sine at rate.
func sineWAV(rate, n int) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		w(v)
	}
	b.WriteString("data")
	w(uint32(2 * n))
	for i := range n {
		w(int16(12000 * math.Sin(2*math.Pi*200*float64(i)/float64(rate))))
	}
	return b.Bytes()
}
