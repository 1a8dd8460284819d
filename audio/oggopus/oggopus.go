// Package oggopus writes 24 kHz mono speech as Ogg Opus (RFC 7845), the
// container OpenAI's response_format "opus" names: the Opus packets come
// from github.com/thesyncim/gopus (a pure-Go Opus encoder, no cgo), the
// Ogg pages are written here (ogg.go) so the last packet carries the end
// of stream and the granule position that trims the padding. It
// implements audio.Encoder, streaming: each 20 ms of input becomes one
// Opus packet on its own Ogg page as soon as it is complete.
// It is kept out of package audio so the portable packages (and the WASI
// guest) do not link an Opus encoder.
package oggopus

import (
	"fmt"
	"io"

	"github.com/thesyncim/gopus"
)

// ContentType is the MIME type of an Ogg Opus stream.
const ContentType = "audio/ogg"

// Bitrate is the encoder's target: 32 kb/s, wideband speech well above
// Opus's transparent range for a voice.
const Bitrate = 32000

// frameMS is the Opus frame length.
const frameMS = 20

// Encoder is an audio.Encoder writing Ogg Opus.
type Encoder struct {
	rate   int
	enc    *gopus.Encoder
	w      io.Writer // Begin's: every page goes there
	pages  pageWriter
	frame  []float32 // the frame being filled
	fill   int
	packet []byte
	in     int64 // input samples received
	sent   int64 // samples (input rate) encoded, padding included
	// ahead is the encoder's lookahead at the input rate, the Ogg pre-skip.
	ahead int
}

// NewEncoder returns an Ogg Opus encoder of mono audio at rate Hz (one
// of Opus's rates: 8, 12, 16, 24 or 48 kHz).
func NewEncoder(rate int) (*Encoder, error) {
	switch rate {
	case 8000, 12000, 16000, 24000, 48000:
	default:
		return nil, fmt.Errorf("oggopus: sample rate %d: Opus takes 8000, 12000, 16000, 24000 or 48000", rate)
	}
	enc, err := gopus.NewEncoder(gopus.EncoderConfig{SampleRate: rate, Channels: 1, Application: gopus.ApplicationAudio})
	if err != nil {
		return nil, fmt.Errorf("oggopus: encoder at %d Hz: %w", rate, err)
	}
	if err := enc.SetBitrate(Bitrate); err != nil {
		return nil, fmt.Errorf("oggopus: bitrate %d: %w", Bitrate, err)
	}
	if err := enc.SetSignal(gopus.SignalVoice); err != nil {
		return nil, fmt.Errorf("oggopus: voice signal hint: %w", err)
	}
	return &Encoder{
		rate:   rate,
		enc:    enc,
		frame:  make([]float32, rate*frameMS/1000),
		packet: make([]byte, 4000),
		ahead:  enc.Lookahead(),
	}, nil
}

// Begin writes the Ogg Opus identification and comment headers to w,
// where every later page goes too (Encode's and Finish's w must be it).
func (e *Encoder) Begin(w io.Writer) error {
	e.w = w
	if err := e.pages.write(w, opusHead(uint16(e.ahead*48000/e.rate), e.rate), 0, flagBOS); err != nil {
		return fmt.Errorf("oggopus: OpusHead page: %w", err)
	}
	if err := e.pages.write(w, opusTags(), 0, 0); err != nil {
		return fmt.Errorf("oggopus: OpusTags page: %w", err)
	}
	return nil
}

// Encode writes a page for each 20 ms frame pcm completes; the rest waits
// for the next call.
func (e *Encoder) Encode(w io.Writer, pcm []float32) error {
	if e.w == nil {
		return fmt.Errorf("oggopus: Encode before Begin")
	}
	e.in += int64(len(pcm))
	for len(pcm) > 0 {
		n := copy(e.frame[e.fill:], pcm)
		e.fill += n
		pcm = pcm[n:]
		if e.fill == len(e.frame) {
			if err := e.flushFrame(false); err != nil {
				return err
			}
		}
	}
	return nil
}

// Finish pads the last frame with silence, encodes frames until the
// lookahead is flushed, and ends the stream: the last page's granule
// position trims the padding (RFC 7845 §4), so a decoder returns exactly
// the samples given. The last page is flagged end of stream.
func (e *Encoder) Finish(w io.Writer) error {
	if e.w == nil {
		return fmt.Errorf("oggopus: Finish before Begin")
	}
	for e.sent < e.in+int64(e.ahead) || e.fill > 0 {
		clear(e.frame[e.fill:])
		e.fill = len(e.frame)
		if err := e.flushFrame(e.sent+int64(len(e.frame)) >= e.in+int64(e.ahead)); err != nil {
			return err
		}
	}
	return nil
}

// flushFrame encodes the full frame and writes its page; the last one's
// granule ends at pre-skip + the input's length (in 48 kHz samples).
func (e *Encoder) flushFrame(last bool) error {
	n, err := e.enc.Encode(e.frame, e.packet)
	if err != nil {
		return fmt.Errorf("oggopus: encode: %w", err)
	}
	e.sent += int64(len(e.frame))
	granule, flags := e.sent*48000/int64(e.rate), byte(0)
	if last {
		granule, flags = (int64(e.ahead)+e.in)*48000/int64(e.rate), flagEOS
	}
	if err := e.pages.write(e.w, e.packet[:n], granule, flags); err != nil {
		return fmt.Errorf("oggopus: page %d: %w", e.pages.seq, err)
	}
	e.fill = 0
	return nil
}
