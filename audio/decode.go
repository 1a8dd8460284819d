package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrFormat is wrapped by every refusal of a malformed or unsupported
// audio file, so callers can tell a bad upload from an internal failure.
var ErrFormat = errors.New("audio: bad audio file")

// Limits bounding what a decoder accepts.
const (
	// MinRate and MaxRate bound the sample rate a file may declare.
	MinRate, MaxRate = 1000, 768000
	// MaxChannels bounds the channel count a file may declare.
	MaxChannels = 16
	// maxFloatSample bounds a float sample's magnitude (full scale is 1;
	// beyond this the file is not audio).
	maxFloatSample = 1000
)

// Decoded is a decoded file: mono samples (every channel averaged) at the
// file's own rate.
type Decoded struct {
	Samples  []float32 // mono, in [-1, 1] for integer PCM
	Rate     int       // samples per second, as the file declares
	Channels int       // the file's channel count before averaging
	Format   string    // "wav/pcm16", "wav/float32", …
}

// formatErrorf returns an ErrFormat error naming the file.
func formatErrorf(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrFormat, name, fmt.Sprintf(format, args...))
}

// Decode decodes an audio file held in data; name (a path or "upload")
// names it in errors. The container is recognised by its leading bytes: a
// WAV (RIFF/WAVE: PCM 8-, 16-, 24- and 32-bit, IEEE float 32 and 64, and
// WAVE_FORMAT_EXTENSIBLE with those sub-formats) is decoded; FLAC and MP3
// are left to package audio/compressed (so that the standard-library-only
// users of this package, the WASI guest among them, do not link their
// decoders); Ogg and anything else is refused by name. Channels are
// averaged to mono.
func Decode(name string, data []byte) (*Decoded, error) {
	switch {
	case len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return decodeWAV(name, data)
	case len(data) >= 4 && string(data[0:4]) == "fLaC":
		return nil, formatErrorf(name, "FLAC is decoded by package audio/compressed")
	case len(data) >= 4 && string(data[0:4]) == "OggS":
		return nil, formatErrorf(name, "Ogg is not supported (convert the clip to WAV)")
	case IsMP3(data):
		return nil, formatErrorf(name, "MP3 is decoded by package audio/compressed")
	case len(data) == 0:
		return nil, formatErrorf(name, "empty file")
	}
	return nil, formatErrorf(name, "not a WAV file (no RIFF/WAVE header)")
}

// IsMP3 reports whether data starts like an MP3 (an ID3v2 tag or an MPEG
// audio frame sync).
func IsMP3(data []byte) bool {
	return len(data) >= 3 && (string(data[0:3]) == "ID3" || (data[0] == 0xFF && data[1]&0xE0 == 0xE0))
}

// WAV format tags.
const (
	tagPCM        = 1
	tagFloat      = 3
	tagExtensible = 0xFFFE
)

// guidTail is the last 14 bytes every KSDATAFORMAT_SUBTYPE GUID of a
// WAVE_FORMAT_EXTENSIBLE file shares; its first two bytes are the tag.
var guidTail = []byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

type wavFormat struct {
	tag, channels, bits int
	rate                int
}

// decodeWAV walks the RIFF chunks: fmt (required before data), data
// (required), anything else skipped. A data size of UnknownSize (a
// streamed file) or one running past the end of a file whose RIFF size is
// also UnknownSize reads to the end of the file.
func decodeWAV(name string, data []byte) (*Decoded, error) {
	riffSize := binary.LittleEndian.Uint32(data[4:8])
	var f *wavFormat
	pos := 12
	for {
		if pos+8 > len(data) {
			if f == nil {
				return nil, formatErrorf(name, "no fmt chunk")
			}
			return nil, formatErrorf(name, "no data chunk")
		}
		id := string(data[pos : pos+4])
		size := int64(binary.LittleEndian.Uint32(data[pos+4 : pos+8]))
		body := pos + 8
		switch id {
		case "fmt ":
			if f != nil {
				return nil, formatErrorf(name, "second fmt chunk at byte %d", pos)
			}
			if size > int64(len(data)-body) {
				return nil, formatErrorf(name, "fmt chunk of %d bytes runs past the end of the file", size)
			}
			var err error
			if f, err = parseFmt(name, data[body:body+int(size)]); err != nil {
				return nil, err
			}
		case "data":
			if f == nil {
				return nil, formatErrorf(name, "data chunk before the fmt chunk")
			}
			rest := int64(len(data) - body)
			if size == UnknownSize || (size > rest && riffSize == UnknownSize) {
				size = rest
			}
			if size > rest {
				return nil, formatErrorf(name, "data chunk of %d bytes, only %d in the file (truncated)", size, rest)
			}
			return decodeSamples(name, f, data[body:body+int(size)])
		}
		if size > int64(len(data)-body) {
			return nil, formatErrorf(name, "chunk %q of %d bytes runs past the end of the file", sanitize(id), size)
		}
		pos = body + int(size) + int(size&1) // chunks are padded to even sizes
	}
}

// sanitize makes a chunk id printable for an error message.
func sanitize(id string) string {
	b := []byte(id)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

func parseFmt(name string, b []byte) (*wavFormat, error) {
	if len(b) < 16 {
		return nil, formatErrorf(name, "fmt chunk of %d bytes, want at least 16", len(b))
	}
	f := &wavFormat{
		tag:      int(binary.LittleEndian.Uint16(b[0:2])),
		channels: int(binary.LittleEndian.Uint16(b[2:4])),
		rate:     int(binary.LittleEndian.Uint32(b[4:8])),
		bits:     int(binary.LittleEndian.Uint16(b[14:16])),
	}
	blockAlign := int(binary.LittleEndian.Uint16(b[12:14]))
	if f.tag == tagExtensible {
		if len(b) < 40 {
			return nil, formatErrorf(name, "WAVE_FORMAT_EXTENSIBLE fmt chunk of %d bytes, want 40", len(b))
		}
		guid := b[24:40]
		if !bytes.Equal(guid[2:], guidTail) {
			return nil, formatErrorf(name, "WAVE_FORMAT_EXTENSIBLE sub-format %x is not PCM or IEEE float", guid)
		}
		f.tag = int(binary.LittleEndian.Uint16(guid[0:2]))
	}
	if f.channels < 1 || f.channels > MaxChannels {
		return nil, formatErrorf(name, "%d channels, want 1..%d", f.channels, MaxChannels)
	}
	if f.rate < MinRate || f.rate > MaxRate {
		return nil, formatErrorf(name, "sample rate %d Hz, want %d..%d", f.rate, MinRate, MaxRate)
	}
	switch {
	case f.tag == tagPCM && (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32):
	case f.tag == tagFloat && (f.bits == 32 || f.bits == 64):
	case f.tag == tagPCM || f.tag == tagFloat:
		return nil, formatErrorf(name, "%d-bit samples of format %d are not supported (PCM 8/16/24/32, float 32/64)", f.bits, f.tag)
	default:
		return nil, formatErrorf(name, "format tag %#x is not supported (PCM, IEEE float or extensible)", f.tag)
	}
	if blockAlign != f.channels*f.bits/8 {
		return nil, formatErrorf(name, "block align %d, want %d for %d channels of %d bits", blockAlign, f.channels*f.bits/8, f.channels, f.bits)
	}
	return f, nil
}

// decodeSamples converts the data chunk to mono float32. A trailing partial
// frame is dropped (streamed files may end mid-frame); a non-finite float
// sample is refused by index.
func decodeSamples(name string, f *wavFormat, b []byte) (*Decoded, error) {
	width := f.bits / 8
	frame := width * f.channels
	n := len(b) / frame
	out := make([]float32, n)
	inv := 1 / float64(f.channels)
	for t := 0; t < n; t++ {
		var sum float64
		for c := 0; c < f.channels; c++ {
			p := b[(t*f.channels+c)*width:]
			var v float64
			switch {
			case f.tag == tagFloat && width == 4:
				v = float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
			case f.tag == tagFloat:
				v = math.Float64frombits(binary.LittleEndian.Uint64(p))
			case width == 1:
				v = (float64(p[0]) - 128) / 128
			case width == 2:
				v = float64(int16(binary.LittleEndian.Uint16(p))) / (1 << 15)
			case width == 3:
				v = float64(int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24)>>8) / (1 << 23)
			default:
				v = float64(int32(binary.LittleEndian.Uint32(p))) / (1 << 31)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxFloatSample {
				return nil, formatErrorf(name, "sample %d of channel %d is %v (want a finite value within ±%g)", t, c, v, float64(maxFloatSample))
			}
			sum += v
		}
		out[t] = float32(sum * inv)
	}
	kind := "pcm"
	if f.tag == tagFloat {
		kind = "float"
	}
	return &Decoded{Samples: out, Rate: f.rate, Channels: f.channels, Format: fmt.Sprintf("wav/%s%d", kind, f.bits)}, nil
}
