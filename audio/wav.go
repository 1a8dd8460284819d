// Package audio writes and reads PCM audio: a WAV (RIFF, 16-bit PCM) writer
// that can stream to a pipe (sizes left as the 0xFFFFFFFF "unknown length"
// sentinel) and patches the sizes when its destination can seek (a file);
// the streaming encoders of every format omni serves (wav, pcm, mp3, flac;
// NewEncoder), all through one float→s16 conversion (PCM16); the reader of
// reference clips (Decode, Prepare, LoadReference: WAV PCM and float, mono
// mix, a length bound) and a band-limited resampler to 24 kHz. FLAC and MP3
// decoding is in audio/compressed. It is portable: the standard library and
// shine-mp3 (pure Go).
package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// UnknownSize is the RIFF and data chunk size written while the length is
// not known (a stream); readers that honour it read to the end of the data.
const UnknownSize = 0xFFFFFFFF

// headerBytes is the size of the canonical 44-byte PCM WAV header.
const headerBytes = 44

// WAVWriter writes float samples as 16-bit PCM WAV. Samples are clamped to
// [-1, 1] and scaled by 32767 with rounding to nearest (half away from
// zero): 1 → 32767, -1 → -32767, 0.5 → 16384 (16383.5 rounded); NaN → 0.
type WAVWriter struct {
	w        io.Writer
	channels int
	data     int64 // bytes of sample data written
	buf      []byte
	closed   bool
	err      error
}

// NewWAVWriter writes the header of a 16-bit PCM WAV of rate samples per
// second and channels channels, sizes set to UnknownSize, and returns the
// writer for the samples (interleaved when channels > 1).
func NewWAVWriter(w io.Writer, rate, channels int) (*WAVWriter, error) {
	if rate <= 0 || rate > 1<<20 {
		return nil, fmt.Errorf("audio: sample rate %d outside [1, %d]", rate, 1<<20)
	}
	if channels < 1 || channels > 16 {
		return nil, fmt.Errorf("audio: %d channels outside [1, 16]", channels)
	}
	h := Header(rate, channels, UnknownSize)
	if _, err := w.Write(h); err != nil {
		return nil, fmt.Errorf("audio: write WAV header: %w", err)
	}
	return &WAVWriter{w: w, channels: channels}, nil
}

// Header returns the canonical 44-byte header of 16-bit PCM at rate with
// channels for dataSize bytes of samples (UnknownSize: both sizes are the
// sentinel), for writers that stream the samples themselves.
func Header(rate, channels int, dataSize uint32) []byte {
	h := make([]byte, headerBytes)
	riff := uint32(UnknownSize)
	if dataSize != UnknownSize {
		riff = 36 + dataSize
	}
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], riff)
	copy(h[8:], "WAVE")
	copy(h[12:], "fmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataSize)
	return h
}

// PCM16 converts a sample to 16-bit PCM as WAVWriter does.
func PCM16(x float32) int16 {
	if x != x { // NaN
		return 0
	}
	if x <= -1 {
		return -32767
	}
	if x >= 1 {
		return 32767
	}
	return int16(math.Round(float64(x) * 32767))
}

// Write appends samples (interleaved frames when channels > 1); a count
// that is not a multiple of the channels is refused and nothing is written.
func (w *WAVWriter) Write(samples []float32) error {
	if w.closed {
		return errors.New("audio: write after close")
	}
	if w.err != nil {
		return w.err
	}
	if len(samples)%w.channels != 0 {
		// a partial frame would shift every later sample to the wrong channel
		return fmt.Errorf("audio: %d samples is not a whole number of %d-channel frames", len(samples), w.channels)
	}
	w.buf = AppendS16LE(w.buf[:0], samples)
	b := w.buf
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("audio: write samples: %w", err)
		return w.err
	}
	w.data += int64(len(b))
	return nil
}

// Samples returns the samples written so far (all channels counted).
func (w *WAVWriter) Samples() int64 { return w.data / 2 }

// Close finishes the file: when the destination is an io.WriteSeeker that
// can seek (a regular file) and the data fits a 32-bit size, the RIFF and
// data sizes are patched in place and the position restored to the end;
// otherwise (a pipe) the UnknownSize sentinels stay. Close does not close
// the underlying writer.
func (w *WAVWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	ws, ok := w.w.(io.WriteSeeker)
	if !ok || w.data > math.MaxUint32-36 {
		return nil
	}
	end, err := ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil // not seekable (a pipe): the sentinel stays
	}
	start := end - w.data - headerBytes
	if start < 0 {
		return nil
	}
	var sz [4]byte
	binary.LittleEndian.PutUint32(sz[:], uint32(36+w.data))
	if err := patch(ws, start+4, sz[:]); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(sz[:], uint32(w.data))
	if err := patch(ws, start+40, sz[:]); err != nil {
		return err
	}
	if _, err := ws.Seek(end, io.SeekStart); err != nil {
		return fmt.Errorf("audio: patch WAV sizes: %w", err)
	}
	return nil
}

func patch(ws io.WriteSeeker, off int64, b []byte) error {
	if _, err := ws.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("audio: patch WAV sizes: %w", err)
	}
	if _, err := ws.Write(b); err != nil {
		return fmt.Errorf("audio: patch WAV sizes: %w", err)
	}
	return nil
}
