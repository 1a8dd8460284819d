package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeWAV decodes a codes file on the tiny synthetic codec whole and
// one frame per call: the WAV has the patched sizes of 3·48 samples and both
// chunkings give the same bytes.
func TestDecodeWAV(t *testing.T) {
	dir := t.TempDir()
	codes := filepath.Join(dir, "codes.json")
	js := `{"model":"synth:tiny","precision":"int8","frames":3,"codes":[` +
		`[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15],[23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8],[5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5]]}`
	if err := os.WriteFile(codes, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	var wavs [][]byte
	for _, chunk := range []string{"0", "1"} {
		out := filepath.Join(dir, "a"+chunk+".wav")
		var o, e bytes.Buffer
		if code := run([]string{"decode", codes, "-o", out, "--chunk", chunk}, &o, &e); code != exitOK {
			t.Fatalf("decode --chunk %s: exit %d: %s", chunk, code, e.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		wavs = append(wavs, b)
	}
	b := wavs[0]
	if len(b) != 44+2*3*48 || string(b[:4]) != "RIFF" || string(b[36:40]) != "data" ||
		binary.LittleEndian.Uint32(b[40:]) != 2*3*48 || binary.LittleEndian.Uint32(b[4:]) != 36+2*3*48 ||
		binary.LittleEndian.Uint32(b[24:]) != 24000 {
		t.Fatalf("WAV of %d bytes, header % x", len(b), b[:min(44, len(b))])
	}
	if !bytes.Equal(wavs[0], wavs[1]) {
		t.Fatal("one call and one frame per call gave different WAVs")
	}
}

// TestDecodeRefusesBadCodes checks that a frame of 15 codes and an
// out-of-range code are refused with messages naming them.
func TestDecodeRefusesBadCodes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ codes, msg string }{
		{`[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14]]`, "codes[0] has 15 codebooks"},
		{`[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,99]]`, "codebook 15: code 99"},
	} {
		p := filepath.Join(dir, "c.json")
		os.WriteFile(p, []byte(`{"model":"synth:tiny","codes":`+c.codes+`}`), 0o644)
		var o, e bytes.Buffer
		if code := run([]string{"decode", p, "-o", filepath.Join(dir, "x.wav")}, &o, &e); code != exitError || !strings.Contains(e.String(), c.msg) {
			t.Errorf("codes %s: exit %d, stderr %q, want an error naming %q", c.codes, code, e.String(), c.msg)
		}
	}
}

// TestDecodeWASMSameWAV decodes the same codes natively and with --wasm
// (the codec graph in the WASI guest, one frame per call there): the WAV
// files must be byte for byte the same. It needs the embedded guest built
// from this tree (`go generate ./host/...`).
func TestDecodeWASMSameWAV(t *testing.T) {
	dir := t.TempDir()
	codes := filepath.Join(dir, "codes.json")
	js := `{"model":"synth:tiny","codes":[` +
		`[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15],[23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8],[5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5]]}`
	if err := os.WriteFile(codes, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	var wavs [][]byte
	for _, args := range [][]string{{"--chunk", "0"}, {"--wasm", "--chunk", "1"}} {
		out := filepath.Join(dir, "o.wav")
		var o, e bytes.Buffer
		if code := run(append([]string{"decode", codes, "-o", out, "--precision", "mixed"}, args...), &o, &e); code != exitOK {
			t.Fatalf("decode %v: exit %d: %s", args, code, e.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		wavs = append(wavs, b)
	}
	if pcm := wavs[0][44:]; bytes.Count(pcm, []byte{0}) == len(pcm) {
		t.Fatal("the native WAV is silent: the comparison would prove nothing")
	}
	if len(wavs[0]) != 44+2*3*48 || !bytes.Equal(wavs[0], wavs[1]) {
		t.Fatalf("native WAV of %d bytes, WASI WAV of %d: not the same bytes", len(wavs[0]), len(wavs[1]))
	}
}
