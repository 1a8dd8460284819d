package wcache

import (
	"context"
	"fmt"
)

// PrivateChunk is the bytes Privatize copies and swaps in at a time: a
// whole number of huge pages, small enough that Close waits little for
// the chunk in flight.
const PrivateChunk = 32 << 20

// Privatize copies the file's memory into this process's own anonymous
// memory, chunk by chunk, each chunk moved over the mapping in place: the
// blobs keep their addresses and bytes, so kernels may read them while it
// runs. On Linux the copy asks for huge pages, and its pages are no longer
// the page cache's: other processes mapping the file no longer share them,
// and what the kernel does to mapped page-cache pages (on the project's
// VMs, a stall of tens of milliseconds every half second) no longer
// reaches them (RATIONALE: "Why are the mapped weights copied into
// private memory?"). Elsewhere the file was read into private memory
// already and Privatize does nothing.
//
// It returns the bytes privatized so far; it stops at ctx's end or at
// Close (Close waits for the chunk in flight), with ctx's error or nil.
func (f *File) Privatize(ctx context.Context) (int, error) {
	if !privatizable {
		return 0, nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return f.privatized(), err
		}
		done, err := f.privatizeNext()
		if err != nil {
			return f.privatized(), fmt.Errorf("wcache: %s: private copy at byte %d: %w", f.path, f.privatized(), err)
		}
		if done {
			return f.privatized(), nil
		}
	}
}

// privatizeNext privatizes the next chunk; done when none is left or the
// file is closed.
func (f *File) privatizeNext() (done bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil || f.private >= len(f.data) {
		return true, nil
	}
	n := min(PrivateChunk, len(f.data)-f.private)
	if err := privatizeChunk(f.data, f.private, n); err != nil {
		return false, err
	}
	f.private += n
	return f.private >= len(f.data), nil
}

// privatized returns the bytes privatized so far.
func (f *File) privatized() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.private
}
