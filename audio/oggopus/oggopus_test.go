package oggopus

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOggOpusDecodedByFFmpeg encodes 1.234 s of a 440 Hz tone, fed in
// uneven chunks, and has ffmpeg (libopus's decoder, independent of the
// encoder) read it back at 24 kHz: ffprobe sees one Opus stream, the
// decoded length is exactly the input's (pre-skip and end trimming honored),
// the pitch (zero crossings) is within 0.5 %, and the waveform matches the
// input (correlation above 0.95).
func TestOggOpusDecodedByFFmpeg(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed (apt-get install -y ffmpeg): no independent Opus decoder")
	}
	const n = 29616 // 1.234 s
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/24000))
	}
	e, err := NewEncoder(24000)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.Begin(&buf); err != nil {
		t.Fatal(err)
	}
	for i, step := 0, 1; i < n; i, step = i+step, step*3%2001+1 {
		if err := e.Encode(&buf, x[i:min(i+step, n)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tone.opus")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("ffprobe"); err == nil {
		out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name,channels", "-of", "csv=p=0", path).Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != "opus,1" {
			t.Errorf("ffprobe: %q (%v), want opus,1", got, err)
		}
	}
	raw, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ar", "24000", "-ac", "1", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg: %v", err)
	}
	y := make([]float64, len(raw)/2)
	for i := range y {
		y[i] = float64(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / 32768
	}
	if len(y) != n {
		t.Errorf("decoded %d samples, want %d", len(y), n)
	}
	m := min(len(y), n)
	var first, last float64
	crossings := 0
	var xy, xx, yy float64
	for i := 2400; i < m-2400; i++ {
		if y[i-1] < 0 && y[i] >= 0 {
			t0 := float64(i-1) + y[i-1]/(y[i-1]-y[i])
			if crossings == 0 {
				first = t0
			}
			last = t0
			crossings++
		}
		xy += float64(x[i]) * y[i]
		xx += float64(x[i]) * float64(x[i])
		yy += y[i] * y[i]
	}
	hz := float64(crossings-1) * 24000 / (last - first)
	if math.Abs(hz-440)/440 > 0.005 {
		t.Errorf("decoded pitch %.2f Hz, want 440", hz)
	}
	if c := xy / math.Sqrt(xx*yy); c < 0.95 {
		t.Errorf("decoded waveform correlates %.3f with the input, want > 0.95", c)
	} else {
		t.Logf("%d bytes for %d samples (%.1f kb/s), correlation %.4f, pitch %.2f Hz", buf.Len(), n, float64(buf.Len())*8/(n/24000.0)/1000, c, hz)
	}
}

// TestOggOpusRefusesRates: rates Opus does not take are refused by value.
func TestOggOpusRefusesRates(t *testing.T) {
	for _, r := range []int{0, 22050, 44100} {
		if _, err := NewEncoder(r); err == nil || !strings.Contains(err.Error(), "sample rate") {
			t.Errorf("rate %d: %v", r, err)
		}
	}
}
