// Package compressed decodes FLAC and MP3 reference clips with two pure-Go
// decoders (github.com/mewkiz/flac, github.com/hajimehoshi/go-mp3) and
// hands everything else to package audio (WAV), so that audio itself stays
// standard-library only. It is portable (no cgo, no OS calls).
package compressed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
	"github.com/mewkiz/flac"

	"github.com/omni-tts/omni/audio"
)

// Decode decodes a FLAC or MP3 held in data, recognised by its leading
// bytes, and anything else with audio.Decode (a WAV, or a refusal by
// name). name names the file in errors; channels are averaged to mono.
func Decode(name string, data []byte) (*audio.Decoded, error) {
	switch {
	case len(data) >= 4 && string(data[0:4]) == "fLaC":
		return decodeFLAC(name, data)
	case audio.IsMP3(data):
		return decodeMP3(name, data)
	}
	return audio.Decode(name, data)
}

// LoadReference decodes data (Decode) and prepares it for the encoders
// (audio.Prepare: the length bound, 24 kHz).
func LoadReference(name string, data []byte, maxSeconds float64) (*audio.Reference, error) {
	d, err := Decode(name, data)
	if err != nil {
		return nil, err
	}
	return audio.Prepare(name, d, maxSeconds)
}

// formatErrorf returns an audio.ErrFormat error naming the file.
func formatErrorf(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", audio.ErrFormat, name, fmt.Sprintf(format, args...))
}

// MaxDecodeSeconds bounds the audio a compressed file may decode to (a
// small FLAC of silence can expand to hours): decoding stops and the file
// is refused past it, before any caller's own, smaller bound.
const MaxDecodeSeconds = 1200

// guard turns a panic of a third-party decoder on a malformed file into
// an ErrFormat refusal naming the file.
func guard(name, format string, err *error) {
	if r := recover(); r != nil {
		*err = formatErrorf(name, "malformed %s (the decoder failed: %v)", format, r)
	}
}

// decodeFLAC decodes a FLAC stream with github.com/mewkiz/flac: integer
// samples of 4..32 bits scaled by 2^(bits−1), channels averaged.
func decodeFLAC(name string, data []byte) (d *audio.Decoded, err error) {
	defer guard(name, "FLAC", &err)
	s, err := flac.New(bytes.NewReader(data))
	if err != nil {
		return nil, formatErrorf(name, "malformed FLAC: %v", err)
	}
	defer s.Close()
	info := s.Info
	rate, ch, bits := int(info.SampleRate), int(info.NChannels), int(info.BitsPerSample)
	if rate < audio.MinRate || rate > audio.MaxRate {
		return nil, formatErrorf(name, "FLAC sample rate %d Hz, want %d..%d", rate, audio.MinRate, audio.MaxRate)
	}
	if ch < 1 || ch > audio.MaxChannels || bits < 4 || bits > 32 {
		return nil, formatErrorf(name, "FLAC of %d channels of %d bits", ch, bits)
	}
	limit := MaxDecodeSeconds * rate
	if info.NSamples > uint64(limit) {
		return nil, formatErrorf(name, "FLAC of %d samples is longer than %d s", info.NSamples, MaxDecodeSeconds)
	}
	scale := 1 / (float64(int64(1)<<(bits-1)) * float64(ch))
	var out []float32
	for {
		f, err := s.ParseNext()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, formatErrorf(name, "malformed FLAC frame after %d samples: %v", len(out), err)
		}
		if len(f.Subframes) != ch {
			return nil, formatErrorf(name, "FLAC frame of %d channels in a %d-channel stream", len(f.Subframes), ch)
		}
		n := len(f.Subframes[0].Samples)
		for _, sf := range f.Subframes {
			if len(sf.Samples) != n {
				return nil, formatErrorf(name, "FLAC frame with channels of unequal lengths")
			}
		}
		if len(out)+n > limit {
			return nil, formatErrorf(name, "FLAC decodes to more than %d s", MaxDecodeSeconds)
		}
		for i := 0; i < n; i++ {
			var sum float64
			for _, sf := range f.Subframes {
				sum += float64(sf.Samples[i])
			}
			out = append(out, float32(sum*scale))
		}
	}
	if len(out) == 0 {
		return nil, formatErrorf(name, "FLAC without samples")
	}
	return &audio.Decoded{Samples: out, Rate: rate, Channels: ch, Format: fmt.Sprintf("flac/%d", bits)}, nil
}

// decodeMP3 decodes an MPEG-1/2 Layer III stream with
// github.com/hajimehoshi/go-mp3, which always yields 16-bit stereo (a mono
// file's channel duplicated); the two channels are averaged.
func decodeMP3(name string, data []byte) (d *audio.Decoded, err error) {
	defer guard(name, "MP3", &err)
	dec, err := mp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		return nil, formatErrorf(name, "malformed MP3: %v", err)
	}
	rate := dec.SampleRate()
	if rate < audio.MinRate || rate > audio.MaxRate {
		return nil, formatErrorf(name, "MP3 sample rate %d Hz, want %d..%d", rate, audio.MinRate, audio.MaxRate)
	}
	limit := MaxDecodeSeconds * rate
	if n := dec.Length(); n > int64(limit)*4 {
		return nil, formatErrorf(name, "MP3 decodes to more than %d s", MaxDecodeSeconds)
	}
	var out []float32
	buf := make([]byte, 4*4096)
	for {
		n, err := io.ReadFull(dec, buf)
		for i := 0; i+4 <= n; i += 4 {
			l := int16(binary.LittleEndian.Uint16(buf[i:]))
			r := int16(binary.LittleEndian.Uint16(buf[i+2:]))
			out = append(out, float32((float64(l)+float64(r))/(2*32768)))
		}
		if len(out) > limit {
			return nil, formatErrorf(name, "MP3 decodes to more than %d s", MaxDecodeSeconds)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, formatErrorf(name, "malformed MP3 after %d samples: %v", len(out), err)
		}
	}
	if len(out) == 0 {
		return nil, formatErrorf(name, "MP3 without samples")
	}
	return &audio.Decoded{Samples: out, Rate: rate, Channels: 2, Format: "mp3"}, nil
}
