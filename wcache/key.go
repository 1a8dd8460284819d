package wcache

import (
	"crypto/sha256"
	"fmt"
	"strings"
)

// Key is what a file's content depends on, as "name=value" lines (the
// checkpoint files' sizes, mtimes and header hashes, the precision, the
// kernel layout, …). Its digest is in the header; the lines are in the
// manifest, so a stale file can be refused with what changed.
type Key []string

// Digest returns the SHA-256 of the format version and the lines.
func (k Key) Digest() [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "omni-wcache %d\n", Version)
	for _, l := range k {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// diff describes the first difference between the key a file was made
// with (was) and k, by line name.
func (k Key) diff(was Key) string {
	name := func(l string) string { n, _, _ := strings.Cut(l, "="); return n }
	old := map[string]string{}
	for _, l := range was {
		old[name(l)] = l
	}
	for _, l := range k {
		o, ok := old[name(l)]
		switch {
		case !ok:
			return fmt.Sprintf("%s is new", name(l))
		case o != l:
			return fmt.Sprintf("file has %q, now %q", o, l)
		}
		delete(old, name(l))
	}
	for n := range old {
		return fmt.Sprintf("file has %s, which is gone now", n)
	}
	return "key lines equal but digest differs"
}
