package wcache

import (
	"encoding/binary"
	"hash/crc32"
)

// Version is the format version this package writes and reads. A file of
// another version is refused (ErrVersion) and rebuilt by its user.
const Version = 1

// Align is the alignment of every blob's offset in the file (and so in
// memory, the file being mapped at a page boundary): a cache line, the
// alignment the kernels' packed weights are made with.
const Align = 64

// headerSize is the size of the fixed header at offset 0.
const headerSize = 128

// magic opens every cache file.
var magic = [8]byte{'O', 'M', 'N', 'I', 'W', 'C', 0x1a, '\n'}

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum returns the CRC-32C of b.
func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// header is the fixed part at offset 0. Layout (little-endian):
//
//	0   magic       [8]byte
//	8   version     uint32
//	12  flags       uint32 (0)
//	16  key digest  [32]byte (Key.Digest)
//	48  manifest offset uint64
//	56  manifest length uint64
//	64  file size   uint64
//	72  manifest CRC-32C uint32
//	76  header CRC-32C uint32 (of bytes 0..75)
//	80  zero padding to 128
type header struct {
	version     uint32
	digest      [32]byte
	manifestOff uint64
	manifestLen uint64
	size        uint64
	manifestCRC uint32
}

// marshal encodes h with its checksum.
func (h *header) marshal() []byte {
	b := make([]byte, headerSize)
	copy(b[0:8], magic[:])
	le := binary.LittleEndian
	le.PutUint32(b[8:], h.version)
	copy(b[16:48], h.digest[:])
	le.PutUint64(b[48:], h.manifestOff)
	le.PutUint64(b[56:], h.manifestLen)
	le.PutUint64(b[64:], h.size)
	le.PutUint32(b[72:], h.manifestCRC)
	le.PutUint32(b[76:], checksum(b[:76]))
	return b
}

// unmarshalHeader decodes and checks a header: the magic, the checksum,
// then the version (a file of another version is refused before its other
// fields are read, since they may mean something else).
func unmarshalHeader(b []byte) (header, error) {
	var h header
	if n := min(len(b), len(magic)); string(b[:n]) != string(magic[:n]) {
		return h, errorf(ErrForeign, "no omni cache magic (starts %q)", b[:n])
	}
	if len(b) < headerSize {
		return h, errorf(ErrTruncated, "%d bytes, shorter than the %d-byte header", len(b), headerSize)
	}
	le := binary.LittleEndian
	if got, want := le.Uint32(b[76:]), checksum(b[:76]); got != want {
		return h, errorf(ErrDamaged, "header checksum %08x, header hashes to %08x", got, want)
	}
	h.version = le.Uint32(b[8:])
	if h.version != Version {
		return h, errorf(ErrVersion, "format version %d, this omni reads %d", h.version, Version)
	}
	if f := le.Uint32(b[12:]); f != 0 {
		return h, errorf(ErrDamaged, "header flags %#x, want 0", f)
	}
	copy(h.digest[:], b[16:48])
	h.manifestOff = le.Uint64(b[48:])
	h.manifestLen = le.Uint64(b[56:])
	h.size = le.Uint64(b[64:])
	h.manifestCRC = le.Uint32(b[72:])
	return h, nil
}

// alignUp rounds n up to a multiple of Align.
func alignUp(n int64) int64 { return (n + Align - 1) &^ (Align - 1) }
