package audio

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// wantHeader is a 16-bit mono 24 kHz header written out by hand.
func wantHeader(riff, data uint32) []byte {
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, riff)
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(24000), uint32(48000), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, data)
	return b.Bytes()
}

func TestPCM16(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	for _, c := range []struct {
		x    float32
		want int16
	}{{0, 0}, {1, 32767}, {-1, -32767}, {2, 32767}, {-7, -32767}, {0.5, 16384}, {-0.5, -16384}, {1.0 / 32767, 1}, {0.4 / 32767, 0}, {nan, 0}} {
		if got := PCM16(c.x); got != c.want {
			t.Errorf("PCM16(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}

func TestWAVStreamKeepsSentinel(t *testing.T) {
	var b bytes.Buffer // not seekable
	w, err := NewWAVWriter(&b, 24000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float32{0, 1, -1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := append(wantHeader(0xFFFFFFFF, 0xFFFFFFFF), 0, 0, 0xff, 0x7f, 0x01, 0x80)
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("stream bytes\n% x\nwant\n% x", b.Bytes(), want)
	}
}

func TestWAVFilePatchesSizes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.wav")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWAVWriter(f, 24000, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]float32{0.5, -0.5})
	w.Write([]float32{0})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ := os.ReadFile(path)
	want := append(wantHeader(36+6, 6), 0x00, 0x40, 0x00, 0xc0, 0, 0)
	if !bytes.Equal(got, want) {
		t.Fatalf("file bytes\n% x\nwant\n% x", got, want)
	}
}

func TestWAVRefusesBadFormat(t *testing.T) {
	if _, err := NewWAVWriter(&bytes.Buffer{}, 0, 1); err == nil {
		t.Error("rate 0 accepted")
	}
	if _, err := NewWAVWriter(&bytes.Buffer{}, 24000, 0); err == nil {
		t.Error("0 channels accepted")
	}
}

func TestWAVRefusesPartialFrame(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWAVWriter(&b, 24000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float32{0.5, -0.5, 0.25}); err == nil {
		t.Fatal("3 samples accepted by a 2-channel writer")
	}
	if b.Len() != headerBytes || w.Samples() != 0 {
		t.Fatalf("refused write left %d bytes (%d samples), want the %d-byte header alone", b.Len(), w.Samples(), headerBytes)
	}
	if err := w.Write([]float32{0.5, -0.5}); err != nil {
		t.Fatalf("a whole frame after a refused one: %v", err)
	}
}
