package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fetch makes blobs/<etag> hold the file at path, holding the blob's lock
// in .locks/ throughout: it downloads into
// blobs/<etag>.incomplete, resuming with Range from whatever an earlier
// attempt left there, checks the length and the checksum (want is the LFS
// sha256, or "" to check the git blob sha1 that the etag of a small file
// is), and renames the file into place. A blob already present with the
// right size is kept. It reports whether it downloaded anything.
func (p *puller) fetch(ctx context.Context, path string, m fileMeta, want string) (downloaded bool, err error) {
	blob := p.cache.BlobPath(p.repo, m.ETag)
	unlock, err := lockFile(ctx, p.cache.LockPath(p.repo, m.ETag), func() {
		if p.progress != nil {
			fmt.Fprintf(p.progress, "%s: waiting for another download of this file (lock %s)\n", path, p.cache.LockPath(p.repo, m.ETag))
		}
	})
	if err != nil {
		return false, err
	}
	defer unlock()
	if st, err := os.Stat(blob); err == nil && st.Size() == m.Size {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return false, fmt.Errorf("hub: %w", err)
	}
	part := blob + ".incomplete"
	bar := p.newBar(path, m.Size)
	err = p.c.retry(ctx, func() error { return p.getOnce(ctx, path, part, m.Size, bar) })
	if err != nil {
		bar.fail()
		return true, err
	}
	if err := verify(part, path, m, want); err != nil {
		os.Remove(part)
		bar.fail()
		return true, fmt.Errorf("hub: repo %s file %s: %w; the download was discarded", p.repo.ID, path, err)
	}
	if err := os.Rename(part, blob); err != nil {
		return true, fmt.Errorf("hub: %w", err)
	}
	bar.done(want != "")
	return true, nil
}

// getOnce is one GET of the file into part, starting at part's current
// length. The client follows the hub's 302 to the LFS CDN. A 206 appends; a
// 200 (the server ignored Range) starts over; a 416 with a complete part
// means there is nothing left to fetch.
func (p *puller) getOnce(ctx context.Context, path, part string, size int64, bar *bar) error {
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if have > size {
		if err := f.Truncate(0); err != nil {
			return err
		}
		have, _ = f.Seek(0, io.SeekStart)
	}
	if have == size {
		bar.resume(have)
		return nil
	}
	req, err := p.c.request(ctx, http.MethodGet, p.c.fileURL(p.repo, p.commit, path))
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := p.c.http.Do(req)
	if err != nil {
		return fmt.Errorf("hub: repo %s file %s: %w", p.repo.ID, path, err)
	}
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, ok := rangeStart(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			resp.Body.Close()
			return &finalError{fmt.Errorf("hub: repo %s file %s: asked for bytes %d-, got Content-Range %q", p.repo.ID, path, have, resp.Header.Get("Content-Range"))}
		}
		bar.resume(have)
	case resp.StatusCode == http.StatusOK:
		if have > 0 {
			if err := f.Truncate(0); err != nil {
				resp.Body.Close()
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				resp.Body.Close()
				return err
			}
			have = 0
		}
		bar.resume(0)
	default:
		return statusError(resp, p.repo.ID, path)
	}
	defer resp.Body.Close()
	n, err := io.Copy(f, io.TeeReader(io.LimitReader(resp.Body, size-have+1), bar))
	if err != nil {
		return fmt.Errorf("hub: repo %s file %s: cut after %d bytes: %w", p.repo.ID, path, have+n, err)
	}
	if have+n != size {
		if have+n > size {
			f.Truncate(0)
			return &finalError{fmt.Errorf("hub: repo %s file %s: got more than the %d bytes the hub announced", p.repo.ID, path, size)}
		}
		return fmt.Errorf("hub: repo %s file %s: cut after %d of %d bytes: %w", p.repo.ID, path, have+n, size, io.ErrUnexpectedEOF)
	}
	return f.Sync()
}

// rangeStart parses the first byte of "bytes START-END/TOTAL".
func rangeStart(cr string) (int64, bool) {
	rest, ok := strings.CutPrefix(cr, "bytes ")
	if !ok {
		return 0, false
	}
	s, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// verify checks the downloaded file: its length against the hub's size, and
// its sha256 against want (LFS files) or its git blob sha1 against the etag
// (small files whose etag is a sha1). Errors wrap ErrChecksum.
func verify(part, path string, m fileMeta, want string) error {
	f, err := os.Open(part)
	if err != nil {
		return err
	}
	defer f.Close()
	var h hash.Hash
	kind := "sha256"
	switch {
	case want != "":
		h = sha256.New()
	case len(m.ETag) == 40 && isHex(m.ETag):
		h, kind, want = sha1.New(), "git sha1", m.ETag
		fmt.Fprintf(h, "blob %d\x00", m.Size)
	default:
		return nil // an etag that is no content hash: nothing to check against
	}
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if n != m.Size {
		return fmt.Errorf("%w: %d bytes, the hub says %d", ErrChecksum, n, m.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%w: %s %s, the hub publishes %s", ErrChecksum, kind, got, want)
	}
	return nil
}

// isHex reports whether s is lower-case hexadecimal.
func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
