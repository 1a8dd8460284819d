package audio

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// wavBytes builds a WAV file by hand: a fmt chunk of the given tag, an
// optional junk chunk of odd size before it (padded), and the data bytes.
func wavBytes(tag, channels, rate, bits int, data []byte, extensible bool) []byte {
	var fmtc []byte
	le16 := func(b []byte, v int) []byte { return binary.LittleEndian.AppendUint16(b, uint16(v)) }
	le32 := func(b []byte, v int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
	outer := tag
	if extensible {
		outer = 0xFFFE
	}
	fmtc = le16(fmtc, outer)
	fmtc = le16(fmtc, channels)
	fmtc = le32(fmtc, rate)
	fmtc = le32(fmtc, rate*channels*bits/8)
	fmtc = le16(fmtc, channels*bits/8)
	fmtc = le16(fmtc, bits)
	if extensible {
		fmtc = le16(fmtc, 22)
		fmtc = le16(fmtc, bits)
		fmtc = le32(fmtc, 0) // channel mask
		fmtc = le16(fmtc, tag)
		fmtc = append(fmtc, guidTail...)
	}
	var b []byte
	b = append(b, "RIFF"...)
	b = le32(b, 0)
	b = append(b, "WAVE"...)
	b = append(b, "LIST"...)
	b = le32(b, 3)
	b = append(b, 'a', 'b', 'c', 0) // odd chunk + pad byte
	b = append(b, "fmt "...)
	b = le32(b, len(fmtc))
	b = append(b, fmtc...)
	b = append(b, "data"...)
	b = le32(b, len(data))
	b = append(b, data...)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

func TestDecodeWAVFormats(t *testing.T) {
	// two channels, two frames; the expected mono values are worked out by hand
	cases := []struct {
		name      string
		tag, bits int
		data      []byte
		want      []float32
	}{
		{"pcm8", 1, 8, []byte{255, 128, 0, 64}, []float32{(127.0 / 128) / 2, (-1 - 0.5) / 2}},
		{"pcm16", 1, 16, []byte{0x00, 0x40, 0x00, 0x00, 0x00, 0x80, 0xff, 0x7f}, []float32{0.25, (-1 + 32767.0/32768) / 2}},
		{"pcm24", 1, 24, []byte{0, 0, 0x40, 0, 0, 0xC0, 0xff, 0xff, 0x7f, 0, 0, 0}, []float32{0, (8388607.0 / 8388608) / 2}},
		{"pcm32", 1, 32, []byte{0, 0, 0, 0x40, 0, 0, 0, 0x40, 0, 0, 0, 0x80, 0, 0, 0, 0}, []float32{0.5, -0.5}},
		{"float32", 3, 32, f32le(0.75, -0.25, 2, 1), []float32{0.25, 1.5}},
		{"float64", 3, 64, f64le(0.125, 0.125, -1, 0), []float32{0.125, -0.5}},
	}
	for _, c := range cases {
		for _, ext := range []bool{false, true} {
			d, err := Decode("x.wav", wavBytes(c.tag, 2, 22050, c.bits, c.data, ext))
			if err != nil {
				t.Fatalf("%s ext=%v: %v", c.name, ext, err)
			}
			if d.Rate != 22050 || d.Channels != 2 || len(d.Samples) != len(c.want) {
				t.Fatalf("%s: rate %d channels %d samples %d", c.name, d.Rate, d.Channels, len(d.Samples))
			}
			for i, w := range c.want {
				if math.Abs(float64(d.Samples[i]-w)) > 1e-7 {
					t.Errorf("%s ext=%v: sample %d = %v, want %v", c.name, ext, i, d.Samples[i], w)
				}
			}
		}
	}
}

func f32le(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func f64le(v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// TestDecodeOwnWriter reads back what WAVWriter writes, both with patched
// sizes and with the streaming sentinel.
func TestDecodeStreamedSentinel(t *testing.T) {
	data := []byte{0x00, 0x40, 0x00, 0xC0, 0x01} // two samples and a partial one
	b := append(Header(16000, 1, UnknownSize), data...)
	d, err := Decode("pipe.wav", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Samples) != 2 || d.Samples[0] != 0.5 || d.Samples[1] != -0.5 || d.Rate != 16000 {
		t.Fatalf("got %v at %d", d.Samples, d.Rate)
	}
}

func TestDecodeRefusals(t *testing.T) {
	good := wavBytes(1, 1, 16000, 16, []byte{1, 2, 3, 4}, false)
	mut := func(f func(b []byte) []byte) []byte { c := append([]byte(nil), good...); return f(c) }
	fmtAt := strings.Index(string(good), "fmt ") + 8
	cases := map[string][]byte{
		"empty file":           {},
		"not a WAV":            []byte("hello world, not audio"),
		"FLAC is decoded by":   []byte("fLaC\x00\x00\x00\x22"),
		"Ogg is not supported": []byte("OggS\x00\x02"),
		"decoded by package":   []byte("ID3\x04\x00"),
		"no data chunk":        good[:len(good)-12],
		"truncated":            mut(func(b []byte) []byte { return b[:len(b)-1] }),
		"channels":             mut(func(b []byte) []byte { b[fmtAt+2] = 0; return b }),
		"sample rate":          mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[fmtAt+4:], 10); return b }),
		"format tag":           mut(func(b []byte) []byte { b[fmtAt] = 2; return b }),
		"12-bit":               mut(func(b []byte) []byte { b[fmtAt+14] = 12; return b }),
		"block align":          mut(func(b []byte) []byte { b[fmtAt+12] = 7; return b }),
		"is NaN":               wavBytes(3, 1, 16000, 32, f32le(float32(math.NaN())), false),
		"is +Inf":              wavBytes(3, 1, 16000, 64, f64le(math.Inf(1)), false),
		"data chunk before":    append(append([]byte("RIFF\x10\x00\x00\x00WAVE"), "data\x00\x00\x00\x00"...), good[12:]...),
	}
	for want, b := range cases {
		_, err := Decode("clip.wav", b)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "clip.wav") {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

func TestLoadReferenceBound(t *testing.T) {
	b := wavBytes(1, 1, 8000, 16, make([]byte, 2*8000*3), false) // 3 s
	if _, err := LoadReference("long.wav", b, 2.5); err == nil || !strings.Contains(err.Error(), "3.00 s") {
		t.Fatalf("over the bound: %v", err)
	}
	r, err := LoadReference("long.wav", b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Samples) != 3*ReferenceRate || r.Source.Rate != 8000 {
		t.Fatalf("%d samples from %d Hz", len(r.Samples), r.Source.Rate)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(wavBytes(1, 2, 44100, 16, []byte{1, 2, 3, 4, 5, 6, 7, 8}, false))
	f.Add(wavBytes(3, 1, 48000, 32, f32le(0.5, -0.5), true))
	f.Add(wavBytes(1, 3, 8000, 24, make([]byte, 18), true))
	f.Add(append(Header(24000, 1, UnknownSize), 1, 2, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode("fuzz.wav", b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		if d.Rate < MinRate || d.Rate > MaxRate || len(d.Samples) > len(b) {
			t.Fatalf("accepted rate %d with %d samples from %d bytes", d.Rate, len(d.Samples), len(b))
		}
		for i, v := range d.Samples {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d = %v", i, v)
			}
		}
	})
}
