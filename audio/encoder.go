package audio

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/braheezy/shine-mp3/pkg/mp3"
)

// The formats NewEncoder writes.
const (
	FormatWAV  = "wav"  // 16-bit PCM WAV, streamed (sizes UnknownSize)
	FormatPCM  = "pcm"  // raw 16-bit little-endian samples
	FormatMP3  = "mp3"  // MPEG layer III (shine-mp3), 128 kb/s
	FormatFLAC = "flac" // streamable FLAC, 16-bit (flac.go)
)

// Formats lists the formats NewEncoder writes.
var Formats = []string{FormatWAV, FormatPCM, FormatMP3, FormatFLAC}

// Encoder turns a stream's float32 mono PCM into one format, chunk by
// chunk, writing to w as it goes; nothing is buffered beyond what the
// format's framing needs (an MP3 frame, a FLAC block). One encoder serves
// one stream.
type Encoder interface {
	// Begin writes what precedes the audio (the WAV header, FLAC's
	// STREAMINFO).
	Begin(w io.Writer) error
	// Encode writes the bytes for pcm (some may be held back to fill a frame).
	Encode(w io.Writer, pcm []float32) error
	// Finish writes what is held back and any trailer.
	Finish(w io.Writer) error
}

// NewEncoder returns the encoder of format (one of Formats) for mono audio
// at rate samples per second.
func NewEncoder(format string, rate int) (Encoder, error) {
	if rate <= 0 || rate > 1<<20-1 {
		return nil, fmt.Errorf("audio: sample rate %d outside [1, %d]", rate, 1<<20-1)
	}
	switch format {
	case FormatWAV:
		return &wavEncoder{rate: rate}, nil
	case FormatPCM:
		return &pcmEncoder{}, nil
	case FormatMP3:
		return newMP3Encoder(rate), nil
	case FormatFLAC:
		return newFLACEncoder(rate), nil
	}
	return nil, fmt.Errorf("audio: unknown format %q (wav, pcm, mp3 or flac)", format)
}

// ContentType is the MIME type of a format.
func ContentType(format string) string {
	switch format {
	case FormatWAV:
		return "audio/wav"
	case FormatPCM:
		return "audio/pcm"
	case FormatMP3:
		return "audio/mpeg"
	case FormatFLAC:
		return "audio/flac"
	}
	return "application/octet-stream"
}

// AppendS16LE appends pcm as 16-bit little-endian samples (PCM16 each) to
// dst: the one float→s16 conversion of every writer here.
func AppendS16LE(dst []byte, pcm []float32) []byte {
	for _, x := range pcm {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(PCM16(x)))
	}
	return dst
}

// pcmEncoder writes 16-bit little-endian mono samples.
type pcmEncoder struct{ buf []byte }

// Begin implements Encoder; raw pcm has no header.
func (e *pcmEncoder) Begin(io.Writer) error { return nil }

// Encode implements Encoder.
func (e *pcmEncoder) Encode(w io.Writer, pcm []float32) error {
	e.buf = AppendS16LE(e.buf[:0], pcm)
	_, err := w.Write(e.buf)
	return err
}

// Finish implements Encoder; raw pcm has no trailer.
func (e *pcmEncoder) Finish(io.Writer) error { return nil }

// wavEncoder writes a streamed WAV: the header with unknown sizes, then pcm.
type wavEncoder struct {
	pcmEncoder
	rate int
}

// Begin implements Encoder.
func (e *wavEncoder) Begin(w io.Writer) error {
	_, err := w.Write(Header(e.rate, 1, UnknownSize))
	return err
}

// mp3Encoder feeds shine-mp3 whole MPEG frames (576 samples at 24 kHz,
// MPEG-2 layer III), holding back the remainder between chunks and padding
// the last frame with silence.
type mp3Encoder struct {
	enc  *mp3.Encoder
	hold []int16
	n    int // samples in hold
}

func newMP3Encoder(rate int) *mp3Encoder {
	enc := mp3.NewEncoder(rate, 1)
	per := int(enc.Mpeg.GranulesPerFrame) * mp3.GRANULE_SIZE
	// One spare element: the encoder's pointer walk ends one past the frame,
	// which must stay inside the allocation (checkptr under -race says so).
	return &mp3Encoder{enc: enc, hold: make([]int16, per, per+1)}
}

// Begin implements Encoder; mp3 frames carry their own headers.
func (e *mp3Encoder) Begin(io.Writer) error { return nil }

// Encode implements Encoder.
func (e *mp3Encoder) Encode(w io.Writer, pcm []float32) error {
	for _, x := range pcm {
		e.hold[e.n] = PCM16(x)
		e.n++
		if e.n == len(e.hold) {
			// shine-mp3's Write encodes exactly one frame when handed exactly
			// one frame's samples.
			if err := e.enc.Write(w, e.hold); err != nil {
				return err
			}
			e.n = 0
		}
	}
	return nil
}

// Finish implements Encoder.
func (e *mp3Encoder) Finish(w io.Writer) error {
	if e.n == 0 {
		return nil
	}
	clear(e.hold[e.n:])
	e.n = 0
	return e.enc.Write(w, e.hold)
}
