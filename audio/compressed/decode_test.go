package compressed

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/omni-tts/omni/audio"
)

// The files under testdata were made by the reference encoders from
// samples given by formula (flac 1.4.2 -8 --no-padding, LAME 3.100 -b 64);
// the tests recompute the samples from the same formulas.

// TestDecodeFLAC: lossless, so every sample must equal the formula's.
func TestDecodeFLAC(t *testing.T) {
	for _, c := range []struct {
		file     string
		rate, ch int
		n        int
		want     func(i int) float64
	}{
		{"stereo16_44100.flac", 44100, 2, 3000, func(i int) float64 {
			l := math.Round(20000 * math.Sin(2*math.Pi*440*float64(i)/44100))
			r := float64((i*7919)%65536 - 32768)
			return (l + r) / 2 / 32768
		}},
		{"mono24_48000.flac", 48000, 1, 2000, func(i int) float64 {
			return math.Round(4000000*math.Sin(2*math.Pi*1000*float64(i)/48000)) / (1 << 23)
		}},
	} {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(c.file, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rate != c.rate || d.Channels != c.ch || len(d.Samples) != c.n {
			t.Fatalf("%s: %d Hz, %d channels, %d samples", c.file, d.Rate, d.Channels, len(d.Samples))
		}
		for i, v := range d.Samples {
			if w := c.want(i); math.Abs(float64(v)-w) > 1e-7 {
				t.Fatalf("%s: sample %d = %v, want %v", c.file, i, v, w)
			}
		}
		// every truncation is refused by name or decodes a prefix, never panics
		for _, cut := range []int{4, 20, 42, 100, len(b) / 2, len(b) - 1} {
			d, err := Decode(c.file, b[:cut])
			if err != nil && !errors.Is(err, audio.ErrFormat) {
				t.Fatalf("%s cut at %d: %v", c.file, cut, err)
			}
			if err == nil && len(d.Samples) > c.n {
				t.Fatalf("%s cut at %d: %d samples", c.file, cut, len(d.Samples))
			}
		}
	}
}

// TestDecodeMP3: lossy, so the worked properties of the 1 kHz tone of
// amplitude 0.5 at 24 kHz: its rate, its length (within the codec's
// padding), its frequency (the dominant DFT bin) and its amplitude.
func TestDecodeMP3(t *testing.T) {
	b, err := os.ReadFile("testdata/tone1k_24000.mp3")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode("tone.mp3", b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rate != 24000 || len(d.Samples) < 12000 || len(d.Samples) > 12000+3*1152 {
		t.Fatalf("%d Hz, %d samples", d.Rate, len(d.Samples))
	}
	mid := d.Samples[3000:9000] // away from the encoder delay and the end
	power := func(f float64) float64 {
		var re, im float64
		for i, v := range mid {
			s, c := math.Sincos(2 * math.Pi * f * float64(i) / 24000)
			re += float64(v) * c
			im += float64(v) * s
		}
		return math.Hypot(re, im) * 2 / float64(len(mid))
	}
	amp := power(1000)
	if math.Abs(20*math.Log10(amp/0.5)) > 1 {
		t.Fatalf("1 kHz amplitude %.4f, want 0.5 within 1 dB", amp)
	}
	for _, f := range []float64{500, 1500, 2000, 3000} {
		if p := power(f); p > amp/100 {
			t.Fatalf("%g Hz at %.4f next to the tone's %.4f", f, p, amp)
		}
	}
	for _, cut := range []int{3, 10, 200, len(b) / 3} {
		if _, err := Decode("tone.mp3", b[:cut]); err != nil && !errors.Is(err, audio.ErrFormat) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
}

func TestDecodeFallsBackToWAV(t *testing.T) {
	wav := append(audio.Header(16000, 1, audio.UnknownSize), 0x00, 0x40)
	d, err := Decode("x.wav", wav)
	if err != nil || len(d.Samples) != 1 || d.Samples[0] != 0.5 {
		t.Fatalf("%v %v", d, err)
	}
	if _, err := Decode("x.ogg", []byte("OggS\x00\x02")); err == nil || !strings.Contains(err.Error(), "Ogg is not supported") {
		t.Fatalf("Ogg: %v", err)
	}
	r, err := LoadReference("tone.mp3", mustRead(t, "testdata/tone1k_24000.mp3"), 0)
	if err != nil || r.Source.Rate != 24000 || r.Source.Format != "mp3" {
		t.Fatalf("%v %v", r, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"stereo16_44100.flac", "mono24_48000.flac", "tone1k_24000.mp3"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(b[:min(len(b), 2000)])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode("fuzz", b)
		if err != nil {
			if !errors.Is(err, audio.ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		if d.Rate < audio.MinRate || d.Rate > audio.MaxRate || len(d.Samples) > MaxDecodeSeconds*d.Rate {
			t.Fatalf("accepted rate %d with %d samples", d.Rate, len(d.Samples))
		}
	})
}
