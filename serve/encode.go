package serve

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/braheezy/shine-mp3/pkg/mp3"

	"github.com/omni-tts/omni/audio"
)

// audioEncoder turns a stream's float32 PCM into one response format, chunk
// by chunk, writing to w as it goes. One encoder serves one stream.
type audioEncoder interface {
	// Begin writes what precedes the audio (the WAV header).
	Begin(w io.Writer) error
	// Encode writes the bytes for pcm (some may be held back to fill a frame).
	Encode(w io.Writer, pcm []float32) error
	// Finish writes what is held back and any trailer.
	Finish(w io.Writer) error
}

// contentType is the Content-Type of a response format.
func contentType(format string) string {
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

// newEncoder returns the encoder of a response format decodeSpeech accepted.
func newEncoder(format string) (audioEncoder, error) {
	switch format {
	case FormatWAV:
		return &wavEncoder{}, nil
	case FormatPCM:
		return &pcmEncoder{}, nil
	case FormatMP3:
		return newMP3Encoder(), nil
	case FormatFLAC:
		return newFLACEncoder(), nil
	}
	return nil, fmt.Errorf("serve: no encoder for response_format %q", format)
}

// pcmEncoder writes 16-bit little-endian mono samples (OpenAI's pcm).
type pcmEncoder struct{ buf []byte }

// Begin implements audioEncoder; raw pcm has no header.
func (e *pcmEncoder) Begin(io.Writer) error { return nil }

// Encode implements audioEncoder.
func (e *pcmEncoder) Encode(w io.Writer, pcm []float32) error {
	if cap(e.buf) < 2*len(pcm) {
		e.buf = make([]byte, 2*len(pcm))
	}
	b := e.buf[:2*len(pcm)]
	for i, x := range pcm {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(audio.PCM16(x)))
	}
	_, err := w.Write(b)
	return err
}

// Finish implements audioEncoder; raw pcm has no trailer.
func (e *pcmEncoder) Finish(io.Writer) error { return nil }

// wavEncoder writes a streamed WAV: the header with unknown sizes, then pcm.
type wavEncoder struct{ pcmEncoder }

// Begin implements audioEncoder.
func (e *wavEncoder) Begin(w io.Writer) error {
	_, err := w.Write(audio.Header(SampleRate, 1, audio.UnknownSize))
	return err
}

// mp3Encoder feeds shine-mp3 whole MPEG frames (576 samples at 24 kHz, MPEG-2
// layer III, 128 kb/s), holding back the remainder between chunks and padding
// the last frame with silence.
type mp3Encoder struct {
	enc  *mp3.Encoder
	hold []int16
	n    int // samples in hold
}

func newMP3Encoder() *mp3Encoder {
	enc := mp3.NewEncoder(SampleRate, 1)
	per := int(enc.Mpeg.GranulesPerFrame) * mp3.GRANULE_SIZE
	// One spare element: the encoder's pointer walk ends one past the frame,
	// which must stay inside the allocation (checkptr under -race says so).
	return &mp3Encoder{enc: enc, hold: make([]int16, per, per+1)}
}

// Begin implements audioEncoder; mp3 frames carry their own headers.
func (e *mp3Encoder) Begin(io.Writer) error { return nil }

// Encode implements audioEncoder.
func (e *mp3Encoder) Encode(w io.Writer, pcm []float32) error {
	for _, x := range pcm {
		e.hold[e.n] = audio.PCM16(x)
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

// Finish implements audioEncoder.
func (e *mp3Encoder) Finish(w io.Writer) error {
	if e.n == 0 {
		return nil
	}
	clear(e.hold[e.n:])
	e.n = 0
	return e.enc.Write(w, e.hold)
}
