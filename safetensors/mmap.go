package safetensors

import (
	"fmt"
	"io"
	"os"
)

// region is the read-only content of an open file: memory-mapped where the
// platform allows it (bytes returns the whole file), read with ReadAt
// elsewhere (bytes returns nil).
type region interface {
	bytes() []byte
	readAt(p []byte, off int64) error
	close() error
}

// fileRegion reads through the open file (the portable fallback).
type fileRegion struct{ f *os.File }

func (r *fileRegion) bytes() []byte { return nil }

func (r *fileRegion) readAt(p []byte, off int64) error {
	n, err := r.f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d bytes at %d: %w", len(p), off, err)
}

func (r *fileRegion) close() error { return r.f.Close() }

// mappedRegion is a file mapped into memory; the file itself is closed once
// mapped.
type mappedRegion struct {
	data  []byte
	unmap func([]byte) error
}

func (r *mappedRegion) bytes() []byte { return r.data }

func (r *mappedRegion) readAt(p []byte, off int64) error {
	if off < 0 || off > int64(len(r.data)) || int64(len(p)) > int64(len(r.data))-off {
		return fmt.Errorf("read %d bytes at %d: %w", len(p), off, io.ErrUnexpectedEOF)
	}
	copy(p, r.data[off:])
	return nil
}

func (r *mappedRegion) close() error {
	d := r.data
	r.data = nil
	return r.unmap(d)
}
