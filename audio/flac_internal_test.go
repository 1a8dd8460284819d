package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFLACEncoderSignals encodes hard signals (white noise, full-scale
// square waves, clipping, silence, a lone last sample, frame numbers past
// the one-byte coding) and checks that ffmpeg's decoder, with CRC checks,
// returns exactly the s16 samples.
func TestFLACEncoderSignals(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed; skipping the FLAC decode check")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	signals := map[string][]float32{}
	noise := make([]float32, 5*flacBlock+1)
	for i := range noise {
		noise[i] = float32(rng.Float64()*2 - 1)
	}
	signals["noise, one-sample last block"] = noise
	square := make([]float32, 3*flacBlock)
	for i := range square {
		square[i] = float32(1 - 2*((i/7)%2))
	}
	signals["full-scale square"] = square
	clip := make([]float32, flacBlock+100)
	for i := range clip {
		clip[i] = float32(3 * math.Sin(float64(i)/5))
	}
	signals["clipped sine"] = clip
	signals["silence"] = make([]float32, 2*flacBlock)
	long := make([]float32, 300*flacBlock)
	for i := range long {
		long[i] = float32(0.3*math.Sin(float64(i)*0.01) + 0.01*(rng.Float64()-0.5))
	}
	signals["300 frames (frame numbers in two UTF-8 bytes)"] = long

	for name, sig := range signals {
		var out bytes.Buffer
		e := newFLACEncoder(24000)
		if err := e.Begin(&out); err != nil {
			t.Fatal(err)
		}
		// Feed in uneven pieces, as chunks would come.
		for i := 0; i < len(sig); {
			n := min(len(sig)-i, 1+rng.IntN(5000))
			if err := e.Encode(&out, sig[i:i+n]); err != nil {
				t.Fatal(err)
			}
			i += n
		}
		if err := e.Finish(&out); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "x.flac")
		os.WriteFile(path, out.Bytes(), 0o644)
		cmd := exec.Command(ffmpeg, "-v", "error", "-err_detect", "crccheck+bitstream+buffer+explode",
			"-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		dec, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("%s: ffmpeg: %v: %s", name, err, stderr.String())
		}
		if len(dec) != 2*len(sig) {
			t.Fatalf("%s: decoded %d samples, want %d", name, len(dec)/2, len(sig))
		}
		for i, x := range sig {
			// The reference s16 value: clamp to [-1, 1], scale by 32767, round.
			want := int16(math.Round(math.Max(-1, math.Min(1, float64(x))) * 32767))
			if got := int16(binary.LittleEndian.Uint16(dec[2*i:])); got != want {
				t.Fatalf("%s: sample %d = %d, want %d", name, i, got, want)
			}
		}
	}
}
