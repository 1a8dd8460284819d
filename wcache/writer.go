package wcache

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Manifest describes a cache file: what it is for, the key it was made
// with, the kernel layout of its objects, free-form metadata of the user
// (the guarded channels of a load, …) and the objects in creation order.
type Manifest struct {
	About   string                     `json:"about"`
	Key     Key                        `json:"key"`
	Layout  string                     `json:"layout"`
	Created time.Time                  `json:"created"`
	Meta    map[string]json.RawMessage `json:"meta,omitempty"`
	Objects []*Object                  `json:"objects"`
}

// Writer writes one cache file: to a temporary file beside its final
// name, renamed into place by Commit, so a reader never sees a partial
// file and concurrent writers of the same name each rename a whole one.
type Writer struct {
	path string
	f    *os.File
	off  int64
	m    Manifest
	err  error
}

// Create starts a cache file that Commit will put at path. The directory
// is created if needed.
func Create(path string) (*Writer, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("wcache: %w", err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("wcache: %w", err)
	}
	w := &Writer{path: path, f: f, off: headerSize}
	if _, err := f.Write(make([]byte, headerSize)); err != nil {
		w.Abort()
		return nil, fmt.Errorf("wcache: write %s: %w", f.Name(), err)
	}
	return w, nil
}

// Add writes the object's blobs and records it in the manifest.
func (w *Writer) Add(o *Object) error {
	if w.err != nil {
		return w.err
	}
	for i := range o.Blobs {
		b := o.data[i]
		if err := w.pad(); err != nil {
			return err
		}
		o.Blobs[i].Off, o.Blobs[i].Len, o.Blobs[i].CRC = w.off, int64(len(b)), checksum(b)
		if _, err := w.f.Write(b); err != nil {
			w.err = fmt.Errorf("wcache: write %s: %w", w.f.Name(), err)
			return w.err
		}
		w.off += int64(len(b))
	}
	o.data = nil
	w.m.Objects = append(w.m.Objects, o)
	return nil
}

// pad writes zeros up to the next multiple of Align.
func (w *Writer) pad() error {
	n := alignUp(w.off) - w.off
	if n == 0 {
		return nil
	}
	if _, err := w.f.Write(make([]byte, n)); err != nil {
		w.err = fmt.Errorf("wcache: write %s: %w", w.f.Name(), err)
		return w.err
	}
	w.off += n
	return nil
}

// SetMeta records a metadata value (JSON-encoded) in the manifest.
func (w *Writer) SetMeta(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("wcache: meta %s: %w", name, err)
	}
	if w.m.Meta == nil {
		w.m.Meta = map[string]json.RawMessage{}
	}
	w.m.Meta[name] = b
	return nil
}

// Commit writes the manifest and the header and renames the file into
// place. about says what the file is for; layout names the kernel layout
// of the objects (also one of the key's lines, normally).
func (w *Writer) Commit(key Key, about, layout string) error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	w.m.About, w.m.Key, w.m.Layout, w.m.Created = about, key, layout, time.Now().UTC()
	man, err := json.Marshal(&w.m)
	if err != nil {
		w.Abort()
		return fmt.Errorf("wcache: manifest: %w", err)
	}
	if err := w.pad(); err != nil {
		w.Abort()
		return err
	}
	h := header{version: Version, digest: key.Digest(), manifestOff: uint64(w.off), manifestLen: uint64(len(man)),
		size: uint64(w.off) + uint64(len(man)), manifestCRC: checksum(man)}
	if _, err := w.f.Write(man); err != nil {
		w.Abort()
		return fmt.Errorf("wcache: write %s: %w", w.f.Name(), err)
	}
	if _, err := w.f.WriteAt(h.marshal(), 0); err != nil {
		w.Abort()
		return fmt.Errorf("wcache: write %s: %w", w.f.Name(), err)
	}
	// readable by every user, as a file written with os.Create would be:
	// a cache directory may be shared by the processes of several users
	if err := w.f.Chmod(0o644); err != nil {
		w.Abort()
		return fmt.Errorf("wcache: chmod %s: %w", w.f.Name(), err)
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("wcache: close %s: %w", w.f.Name(), err)
	}
	if err := os.Rename(w.f.Name(), w.path); err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("wcache: %w", err)
	}
	return nil
}

// Abort removes the temporary file.
func (w *Writer) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
	if w.err == nil {
		w.err = fmt.Errorf("wcache: %s: aborted", w.path)
	}
}

// Written returns the bytes written so far.
func (w *Writer) Written() int64 { return w.off }

var _ io.Closer = (*File)(nil)
