package oggopus

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Ogg page header flags (RFC 3533 §6).
const (
	flagBOS = 0x02
	flagEOS = 0x04
)

// serial is the stream's serial number: fixed, so an encoding is
// reproducible (one logical stream per file needs no random one).
const serial = 0x6f6d6e69 // "omni"

// vendor is the OpusTags vendor string.
const vendor = "omni (gopus)"

// crcTable is Ogg's CRC-32: polynomial 0x04c11db7, not reflected, initial
// value 0, no final xor (RFC 3533 §6).
var crcTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// pageWriter writes one packet per Ogg page, numbering the pages.
type pageWriter struct {
	seq uint32
	buf []byte
}

// write writes packet as one page ending at granule with flags.
func (p *pageWriter) write(w io.Writer, packet []byte, granule int64, flags byte) error {
	segs := len(packet)/255 + 1 // a packet ends with a lacing value below 255
	if segs > 255 {
		return fmt.Errorf("Opus packet of %d bytes does not fit one page", len(packet))
	}
	b := p.buf[:0]
	b = append(b, "OggS"...)
	b = append(b, 0, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(granule))
	b = binary.LittleEndian.AppendUint32(b, serial)
	b = binary.LittleEndian.AppendUint32(b, p.seq)
	b = append(b, 0, 0, 0, 0) // CRC, set below
	b = append(b, byte(segs))
	for i := 0; i < segs-1; i++ {
		b = append(b, 255)
	}
	b = append(b, byte(len(packet)%255))
	b = append(b, packet...)
	var crc uint32
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>24)^c]
	}
	binary.LittleEndian.PutUint32(b[22:], crc)
	p.buf = b
	p.seq++
	_, err := w.Write(b)
	return err
}

// opusHead is the identification header (RFC 7845 §5.1): version 1, one
// channel, the pre-skip at 48 kHz, the input rate, no gain, mapping 0.
func opusHead(preSkip uint16, rate int) []byte {
	b := append([]byte("OpusHead"), 1, 1)
	b = binary.LittleEndian.AppendUint16(b, preSkip)
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint16(b, 0)
	return append(b, 0)
}

// opusTags is the comment header (RFC 7845 §5.2): the vendor, no comments.
func opusTags() []byte {
	b := []byte("OpusTags")
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vendor)))
	b = append(b, vendor...)
	return binary.LittleEndian.AppendUint32(b, 0)
}
