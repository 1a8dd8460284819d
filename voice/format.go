package voice

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"time"
)

// The voice file, version 1 (all integers little-endian):
//
//	offset 0   8 bytes  magic "OMNIVOIC"
//	       8   uint32   version (1)
//	      12   uint32   H, the header's length in bytes (1 ≤ H ≤ MaxHeader)
//	      16   H bytes  the header, a JSON object (header below)
//	  16+H     D × float32  the x-vector, D = header.dims
//	           F × 16 × uint16  the reference codes, frame-major, F = header.frames
//	           uint32   CRC-32 (IEEE) of every byte before it
//
// The file is exactly that long; anything else is refused.
const (
	// Magic starts every voice file.
	Magic = "OMNIVOIC"
	// Version is the file version this package writes and reads.
	Version = 1
	// MaxHeader bounds the JSON header's length.
	MaxHeader = 64 << 10
	// MaxFileSize bounds a voice file's length.
	MaxFileSize = 16 + MaxHeader + 4*MaxDims + 2*Codebooks*MaxFrames + 4
	// Ext ends a voice file's name in a library.
	Ext = ".voice"
)

// header is the file's JSON header.
type header struct {
	Name       string    `json:"name"`
	Model      Model     `json:"model"`
	Dims       int       `json:"dims"`
	Frames     int       `json:"frames"`
	RefText    string    `json:"ref_text"`
	RefSeconds float64   `json:"ref_seconds"`
	Consent    string    `json:"consent"`
	Created    time.Time `json:"created"`
}

// Encode returns v's file (Validate first; the created time is written in
// UTC to the second).
func Encode(v *Voice) ([]byte, error) {
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("voice: encode %q: %w", v.Name, err)
	}
	h, err := json.Marshal(header{Name: v.Name, Model: v.Model, Dims: len(v.XVector), Frames: v.Frames(),
		RefText: v.RefText, RefSeconds: v.RefSeconds, Consent: v.Consent, Created: v.Created.UTC().Truncate(time.Second)})
	if err != nil {
		return nil, fmt.Errorf("voice: encode %q: %w", v.Name, err)
	}
	if len(h) > MaxHeader {
		return nil, fmt.Errorf("voice: encode %q: header of %d bytes, at most %d (shorten the texts)", v.Name, len(h), MaxHeader)
	}
	b := make([]byte, 0, 16+len(h)+4*len(v.XVector)+2*len(v.RefCodes)+4)
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
	b = append(b, h...)
	for _, x := range v.XVector {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	for _, c := range v.RefCodes {
		b = binary.LittleEndian.AppendUint16(b, uint16(c))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// Decode reads a voice file held in b; file names it in errors, which wrap
// ErrCorrupt ("voice: corrupt voice file: me.voice: version 7, this omni
// reads version 1"). Every field is checked (Voice.Validate).
func Decode(file string, b []byte) (*Voice, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, file, fmt.Sprintf(format, a...))
	}
	if len(b) > MaxFileSize {
		return nil, bad("%d bytes, a voice file has at most %d", len(b), MaxFileSize)
	}
	if len(b) < 20 || string(b[:8]) != Magic {
		return nil, bad("not a voice file (no %q magic)", Magic)
	}
	if ver := binary.LittleEndian.Uint32(b[8:]); ver != Version {
		return nil, bad("version %d, this omni reads version %d", ver, Version)
	}
	hl := binary.LittleEndian.Uint32(b[12:])
	if hl < 2 || hl > MaxHeader || int64(hl) > int64(len(b))-20 {
		return nil, bad("header length %d outside [2, %d] or past the end of the %d-byte file", hl, min(MaxHeader, max(len(b)-20, 0)), len(b))
	}
	var h header
	dec := json.NewDecoder(bytes.NewReader(b[16 : 16+hl]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, bad("header: %v", err)
	}
	if dec.More() {
		return nil, bad("header: data after the JSON object")
	}
	if h.Dims < 1 || h.Dims > MaxDims || h.Frames < 0 || h.Frames > MaxFrames {
		return nil, bad("header: dims %d outside [1, %d] or frames %d outside [0, %d]", h.Dims, MaxDims, h.Frames, MaxFrames)
	}
	body := 16 + int(hl)
	want := body + 4*h.Dims + 2*Codebooks*h.Frames + 4
	if len(b) != want {
		return nil, bad("%d bytes, the header (%d dims, %d frames) implies %d", len(b), h.Dims, h.Frames, want)
	}
	if got, sum := binary.LittleEndian.Uint32(b[want-4:]), crc32.ChecksumIEEE(b[:want-4]); got != sum {
		return nil, bad("checksum %08x, the content sums to %08x", got, sum)
	}
	v := &Voice{Name: h.Name, Model: h.Model, RefText: h.RefText, RefSeconds: h.RefSeconds, Consent: h.Consent, Created: h.Created,
		XVector: make([]float32, h.Dims)}
	p := b[body:]
	for i := range v.XVector {
		v.XVector[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	p = p[4*h.Dims:]
	if h.Frames > 0 {
		v.RefCodes = make([]int32, Codebooks*h.Frames)
		for i := range v.RefCodes {
			v.RefCodes[i] = int32(binary.LittleEndian.Uint16(p[2*i:]))
		}
	}
	if err := v.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	return v, nil
}
