package wcache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// File is an open, verified cache file. Its objects' blobs are views of
// the file's memory, valid until Close (on Linux a read-only shared
// mapping: writing to a blob faults).
type File struct {
	Manifest
	path  string
	data  []byte
	unmap func() error

	mu      sync.Mutex // Privatize's chunk in flight against Close
	private int        // bytes of data privatized (a prefix)
}

// Open opens the cache file at path made with key, and verifies it before
// returning: the header (magic, checksum, version), the file size, the
// manifest's checksum, the key (a file made from other inputs is refused
// with what changed), every blob's place and type, and every blob's
// checksum (in parallel on all cores). Every refusal wraps one of the
// Err… reasons and names the file.
func Open(path string, key Key) (*File, error) {
	f, err := open(path, &key, true)
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("wcache: %s: %w", path, err)
	}
	return f, nil
}

// Inspect reads and checks the header and the manifest of the file at
// path (not its blobs, unless verify): what `omni cache ls` shows. The
// manifest is returned whenever it could be read, with the error.
func Inspect(path string, verify bool) (*Manifest, error) {
	f, err := open(path, nil, verify)
	if f != nil {
		m := f.Manifest
		f.Close()
		if err != nil {
			return &m, fmt.Errorf("wcache: %s: %w", path, err)
		}
		return &m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wcache: %s: %w", path, err)
	}
	return nil, nil
}

// open does Open's work; with key nil it skips the key check, and it
// returns the file with a blob-checksum error when the manifest was good.
func open(path string, key *Key, verify bool) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	hb := make([]byte, headerSize)
	if n, err := fd.ReadAt(hb, 0); err != nil && !(err == io.EOF && n > 0) {
		if err == io.EOF {
			return nil, errorf(ErrTruncated, "empty file")
		}
		return nil, err
	} else {
		hb = hb[:n]
	}
	h, err := unmarshalHeader(hb)
	if err != nil {
		return nil, err
	}
	if uint64(size) != h.size {
		if uint64(size) < h.size {
			return nil, errorf(ErrTruncated, "%d bytes, header says %d", size, h.size)
		}
		return nil, errorf(ErrDamaged, "%d bytes, header says %d", size, h.size)
	}
	if h.manifestOff < headerSize || h.manifestOff > h.size || h.manifestLen != h.size-h.manifestOff || h.manifestOff%Align != 0 {
		return nil, errorf(ErrDamaged, "manifest at %d+%d does not end the %d-byte file", h.manifestOff, h.manifestLen, h.size)
	}
	man := make([]byte, h.manifestLen)
	if _, err := fd.ReadAt(man, int64(h.manifestOff)); err != nil {
		return nil, errorf(ErrTruncated, "manifest: %v", err)
	}
	if got := checksum(man); got != h.manifestCRC {
		return nil, errorf(ErrDamaged, "manifest checksum %08x, header says %08x", got, h.manifestCRC)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(man))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, errorf(ErrDamaged, "manifest: %v", err)
	}
	if key != nil && key.Digest() != h.digest {
		return nil, errorf(ErrStale, "%s", key.diff(m.Key))
	}
	if m.Key.Digest() != h.digest {
		return nil, errorf(ErrDamaged, "manifest key does not match the header's digest")
	}
	for _, o := range m.Objects {
		if o == nil {
			return nil, errorf(ErrDamaged, "manifest: null object")
		}
		for _, b := range o.Blobs {
			es := elemSize(b.Type)
			if es == 0 || b.Off%Align != 0 || b.Off < headerSize || b.Len < 0 || b.Len%int64(es) != 0 ||
				b.Off > int64(h.manifestOff) || b.Len > int64(h.manifestOff)-b.Off {
				return nil, errorf(ErrDamaged, "%s object: blob %s (%s at %d+%d) is not inside the payload", o.Kind, b.Name, b.Type, b.Off, b.Len)
			}
		}
	}
	if !verify {
		return &File{Manifest: m, path: path}, nil
	}
	data, unmap, err := mapFile(fd, size)
	if err != nil {
		return nil, fmt.Errorf("map: %w", err)
	}
	f := &File{Manifest: m, path: path, data: data, unmap: unmap}
	for _, o := range m.Objects {
		o.data = make([][]byte, len(o.Blobs))
		for i, b := range o.Blobs {
			o.data[i] = data[b.Off : b.Off+b.Len : b.Off+b.Len]
		}
	}
	if err := f.verify(); err != nil {
		f.Close()
		return &File{Manifest: m, path: path}, err
	}
	return f, nil
}

// verify checks every blob's CRC on all cores; the error names the first
// bad blob found.
func (f *File) verify() error {
	type job struct {
		o *Object
		i int
	}
	var jobs []job
	for _, o := range f.Objects {
		for i := range o.Blobs {
			jobs = append(jobs, job{o, i})
		}
	}
	var next atomic.Int64
	var mu sync.Mutex
	var bad error
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(jobs) {
					return
				}
				j := jobs[k]
				b := &j.o.Blobs[j.i]
				if got := checksum(j.o.data[j.i]); got != b.CRC {
					mu.Lock()
					if bad == nil {
						bad = errorf(ErrDamaged, "object %d (%s): blob %s at %d+%d: checksum %08x, manifest says %08x",
							objectIndex(f.Objects, j.o), j.o.Kind, b.Name, b.Off, b.Len, got, b.CRC)
					}
					mu.Unlock()
					next.Store(int64(len(jobs)))
					return
				}
			}
		}()
	}
	wg.Wait()
	return bad
}

func objectIndex(objs []*Object, o *Object) int {
	for i, x := range objs {
		if x == o {
			return i
		}
	}
	return -1
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Size returns the bytes the file maps (0 when only inspected).
func (f *File) Size() int { return len(f.data) }

// Close releases the file's memory; every view of it is invalid after.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range f.Objects {
		o.data = nil
	}
	f.data = nil
	if f.unmap != nil {
		u := f.unmap
		f.unmap = nil
		return u()
	}
	return nil
}
