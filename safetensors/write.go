package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteTensor is one tensor for Write: its bytes are Data
// (little-endian, in DType), or, when Data is nil, whatever Stream writes
// (so a large model can be written one tensor at a time). Either way the
// byte count must equal the shape × dtype size.
type WriteTensor struct {
	Name   string
	DType  DType
	Shape  []int
	Data   []byte
	Stream func(w io.Writer) error
}

// Write writes tensors (data in the given order) and metadata to
// path atomically: it writes a temporary file in the same directory, syncs
// it, and renames it over path, so a reader never sees a partial file. The
// header is padded with spaces to a multiple of 8 bytes.
func Write(path string, tensors []WriteTensor, metadata map[string]string) (err error) {
	hdr, err := encodeHeader(tensors, metadata)
	if err != nil {
		return inFile(path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(hdr)))
	w.Write(n[:])
	w.Write(hdr)
	for _, t := range tensors {
		want, _ := ElemCount(t.Shape)
		want *= int64(t.DType.Size())
		cw := &countWriter{w: w}
		if t.Data != nil || t.Stream == nil {
			cw.Write(t.Data)
		} else if err := t.Stream(cw); err != nil {
			return inFile(path, fmt.Errorf("write tensor %s: %w", t.Name, err))
		}
		if cw.err != nil {
			return inFile(path, fmt.Errorf("write tensor %s: %w", t.Name, cw.err))
		}
		if cw.n != want {
			return inFile(path, fmt.Errorf("%w: tensor %s: shape %v of %s is %d bytes, got %d", ErrShape, t.Name, t.Shape, t.DType, want, cw.n))
		}
	}
	if err := w.Flush(); err != nil {
		return inFile(path, err)
	}
	if err := tmp.Sync(); err != nil {
		return inFile(path, err)
	}
	if err := tmp.Close(); err != nil {
		return inFile(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}

// encodeHeader builds the padded JSON header, checking names, dtypes and
// shapes.
func encodeHeader(tensors []WriteTensor, metadata map[string]string) ([]byte, error) {
	type entry struct {
		DType   DType   `json:"dtype"`
		Shape   []int   `json:"shape"`
		Offsets []int64 `json:"data_offsets"`
	}
	m := make(map[string]any, len(tensors)+1)
	if metadata != nil {
		m[metadataKey] = metadata
	}
	var off int64
	for _, t := range tensors {
		if t.Name == "" || t.Name == metadataKey {
			return nil, formatError("tensor name %q not allowed", t.Name)
		}
		if _, dup := m[t.Name]; dup {
			return nil, formatError("duplicate tensor %q", t.Name)
		}
		if !t.DType.Valid() {
			return nil, formatError("tensor %s: unknown dtype %q", t.Name, t.DType)
		}
		for _, d := range t.Shape {
			if d < 0 {
				return nil, formatError("tensor %s: negative dim in shape %v", t.Name, t.Shape)
			}
		}
		n, ok := ElemCount(t.Shape)
		if !ok {
			return nil, formatError("tensor %s: shape %v overflows", t.Name, t.Shape)
		}
		size := n * int64(t.DType.Size())
		if t.Data != nil && int64(len(t.Data)) != size {
			return nil, fmt.Errorf("%w: tensor %s: shape %v of %s is %d bytes, data holds %d", ErrShape, t.Name, t.Shape, t.DType, size, len(t.Data))
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		m[t.Name] = entry{DType: t.DType, Shape: shape, Offsets: []int64{off, off + size}}
		off += size
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	for len(b)%8 != 0 {
		b = append(b, ' ')
	}
	return b, nil
}

// countWriter counts bytes and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
