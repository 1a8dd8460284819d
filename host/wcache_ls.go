package host

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wcache"
)

// CacheEntry describes one file of the prepared-weights cache.
type CacheEntry struct {
	Name    string    // file name in the cache directory
	Size    int64     // bytes
	About   string    // what it holds ("talker and code predictor of synth:0.6b in int8")
	Created time.Time // when it was written
	// Valid reports whether this program can use the file: its header and
	// manifest check out, its kernel layout is this build's and it was made
	// by this build. Reason says why not.
	Valid  bool
	Reason string
}

// ListWeightCache describes the files of the cache directory dir (with
// verify, every blob's checksum is checked too, reading every byte).
// Leftover temporary files of an interrupted write are listed as invalid.
func ListWeightCache(dir string, verify bool) ([]CacheEntry, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	build := ""
	var out []CacheEntry
	for _, e := range ents {
		if e.IsDir() || !strings.Contains(e.Name(), ".owc") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		ce := CacheEntry{Name: e.Name(), Size: info.Size(), Created: info.ModTime()}
		if !strings.HasSuffix(e.Name(), ".owc") {
			ce.Reason = "temporary file of a write in progress or interrupted"
			out = append(out, ce)
			continue
		}
		m, err := wcache.Inspect(filepath.Join(dir, e.Name()), verify)
		if m != nil {
			ce.About, ce.Created = m.About, m.Created
		}
		switch {
		case err != nil:
			ce.Reason = err.Error()
		case m.Layout != simd.CacheLayout:
			ce.Reason = "kernel layout " + m.Layout + ", this machine's is " + simd.CacheLayout
		default:
			if build == "" {
				build = buildDigest()
			}
			if !keyHas(m.Key, "build="+build) {
				ce.Reason = "made by another build of omni"
			} else {
				ce.Valid = true
			}
		}
		out = append(out, ce)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// keyHas reports whether key has the line l.
func keyHas(key wcache.Key, l string) bool {
	for _, k := range key {
		if k == l {
			return true
		}
	}
	return false
}
