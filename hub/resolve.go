package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Resolve turns a checkpoint spec into a directory (host.ParseModelSpec
// handles the other kinds of model spec before calling it):
//
//   - any path that exists is returned unchanged, ok false;
//   - "ORG/NAME[@REVISION]" is looked up in the hub cache (CacheDir): the
//     revision's commit (refs/<revision>, or the revision itself when it is
//     a commit hash) names the snapshot directory, which is returned with ok
//     true. A spec not in the cache is an error wrapping ErrNotCached that
//     says to run omni pull.
//
// The empty spec is returned unchanged for the caller to refuse.
func Resolve(spec string) (dir string, ok bool, err error) {
	if spec == "" {
		return spec, false, nil
	}
	if _, err := os.Stat(spec); err == nil {
		return spec, false, nil
	}
	if !looksLikeRepo(spec) {
		return spec, false, nil // a missing local path (or another kind of spec): the opener names it
	}
	cacheDir, err := CacheDir()
	if err != nil {
		return "", false, err
	}
	return Cache{Dir: cacheDir}.Resolve(spec)
}

// looksLikeRepo reports whether spec has the shape of ORG/NAME[@REV] rather
// than of a file path (no leading "/", "./" or "../", one slash before '@').
func looksLikeRepo(spec string) bool {
	id, _, _ := strings.Cut(spec, "@")
	return strings.Count(id, "/") == 1 && !strings.HasPrefix(spec, ".") && !filepath.IsAbs(spec)
}

// Resolve looks ORG/NAME[@REVISION] up in this cache (see the package-level
// Resolve).
func (c Cache) Resolve(spec string) (dir string, ok bool, err error) {
	r, err := ParseRepo(spec)
	if err != nil {
		return "", false, err
	}
	notCached := func(why string) error {
		return fmt.Errorf("hub: model %s: %w (%s, %s): run `omni pull %s`", spec, ErrNotCached, c.Dir, why, r)
	}
	commit, found, err := c.Commit(r)
	if err != nil {
		return "", false, err
	}
	if !found {
		return "", false, notCached("no refs/" + r.Revision)
	}
	dir = c.SnapshotDir(r, commit)
	if _, err := os.Stat(filepath.Join(dir, "config.json")); errors.Is(err, fs.ErrNotExist) {
		return "", false, notCached("snapshot " + commit + " has no config.json")
	} else if err != nil {
		return "", false, fmt.Errorf("hub: model %s: %w", spec, err)
	}
	return dir, true, nil
}
