package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// CacheDir returns the hub cache directory the way huggingface_hub finds it:
// $HF_HUB_CACHE, else the legacy $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub,
// else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
func CacheDir() (string, error) {
	for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if d := os.Getenv(v); d != "" {
			return expandHome(d)
		}
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		d, err := expandHome(d)
		return filepath.Join(d, "hub"), err
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "huggingface", "hub"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("hub: cache directory: set HF_HOME or HF_HUB_CACHE: %w", err)
	}
	return filepath.Join(home, ".cache", "huggingface", "hub"), nil
}

// expandHome expands a leading "~/" as Python's os.path.expanduser does.
func expandHome(p string) (string, error) {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok && p != "~" {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("hub: expand %s: %w", p, err)
	}
	return filepath.Join(home, rest), nil
}

// Repo is a model repository id ORG/NAME and the revision wanted (a branch,
// a tag or a commit; "main" when the spec named none).
type Repo struct {
	ID       string
	Revision string
}

// repoIDPattern is a hub model id with its namespace: ORG/NAME, each part
// letters, digits, '-', '_' and '.', not starting with '-' or '.'.
var repoIDPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*/[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// commitPattern is a full git commit hash.
var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ParseRepo parses "ORG/NAME" or "ORG/NAME@REVISION".
func ParseRepo(spec string) (Repo, error) {
	id, rev, hasRev := strings.Cut(spec, "@")
	if hasRev && rev == "" {
		return Repo{}, fmt.Errorf("hub: model %q: empty revision after @", spec)
	}
	if !hasRev {
		rev = "main"
	}
	if !repoIDPattern.MatchString(id) || strings.Contains(id, "--") || strings.Contains(id, "..") {
		return Repo{}, fmt.Errorf("hub: model %q: want a hub id ORG/NAME[@REVISION]", spec)
	}
	if why := badRevision(rev); why != "" {
		return Repo{}, fmt.Errorf("hub: model %q: bad revision %q: %s", spec, rev, why)
	}
	return Repo{ID: id, Revision: rev}, nil
}

// badRevision says why rev cannot be a revision (a branch, tag or commit
// whose refs/<rev> file lies strictly inside refs/), or returns "": it
// needs '/'-separated components that are not empty and do not start with
// '.', and no "..", '\' or control character anywhere, as git ref names.
func badRevision(rev string) string {
	if strings.Contains(rev, "..") {
		return `it contains ".."`
	}
	if hasBackslashOrControl(rev) {
		return "it holds a backslash or a control character"
	}
	for _, c := range strings.Split(rev, "/") {
		switch {
		case c == "":
			return "it has an empty path component (a leading, trailing or doubled '/')"
		case strings.HasPrefix(c, "."):
			return fmt.Sprintf("the path component %q starts with '.'", c)
		}
	}
	return ""
}

// String returns ORG/NAME, with "@REVISION" unless the revision is main.
func (r Repo) String() string {
	if r.Revision == "main" || r.Revision == "" {
		return r.ID
	}
	return r.ID + "@" + r.Revision
}

// Folder is the repo's directory name in the cache: "models--ORG--NAME".
func (r Repo) Folder() string { return "models--" + strings.ReplaceAll(r.ID, "/", "--") }

// Cache is one hub cache directory.
type Cache struct{ Dir string }

// RepoDir is the repo's folder in the cache.
func (c Cache) RepoDir(r Repo) string { return filepath.Join(c.Dir, r.Folder()) }

// BlobPath is where the file with this etag is stored.
func (c Cache) BlobPath(r Repo, etag string) string {
	return filepath.Join(c.RepoDir(r), "blobs", etag)
}

// LockPath is the lock file of one blob, at the cache root as
// huggingface_hub keeps it: .locks/models--ORG--NAME/<etag>.lock.
func (c Cache) LockPath(r Repo, etag string) string {
	return filepath.Join(c.Dir, ".locks", r.Folder(), etag+".lock")
}

// SnapshotDir is the directory of one commit's files.
func (c Cache) SnapshotDir(r Repo, commit string) string {
	return filepath.Join(c.RepoDir(r), "snapshots", commit)
}

// Commit returns the commit the repo's revision names in the cache: the
// revision itself when it is a full commit hash, else the hash stored in
// refs/<revision> (ok false when that file does not exist).
func (c Cache) Commit(r Repo) (commit string, ok bool, err error) {
	if commitPattern.MatchString(r.Revision) {
		return r.Revision, true, nil
	}
	p := filepath.Join(c.RepoDir(r), "refs", filepath.FromSlash(r.Revision))
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("hub: read ref: %w", err)
	}
	commit = strings.TrimSpace(string(b))
	if !commitPattern.MatchString(commit) {
		return "", false, fmt.Errorf("hub: ref %s holds %q, not a commit hash", p, commit)
	}
	return commit, true, nil
}

// writeRef records that the repo's revision points at commit (nothing to
// record when the revision is the commit itself).
func (c Cache) writeRef(r Repo, commit string) error {
	if r.Revision == commit {
		return nil
	}
	p := filepath.Join(c.RepoDir(r), "refs", filepath.FromSlash(r.Revision))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	if err := os.WriteFile(p, []byte(commit), 0o644); err != nil {
		return fmt.Errorf("hub: write ref: %w", err)
	}
	return nil
}

// link makes snapshots/<commit>/<path> a relative symlink to the blob, as
// huggingface_hub does (../../blobs/<etag>, one more ../ per directory level
// of path), replacing whatever was there.
func (c Cache) link(r Repo, commit, path, etag string) error {
	dst := filepath.Join(c.SnapshotDir(r, commit), filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	rel, err := filepath.Rel(filepath.Dir(dst), c.BlobPath(r, etag))
	if err != nil {
		return fmt.Errorf("hub: link %s: %w", path, err)
	}
	if cur, err := os.Readlink(dst); err == nil && cur == rel {
		return nil
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("hub: link %s: %w", path, err)
	}
	if err := os.Symlink(rel, dst); err != nil {
		return fmt.Errorf("hub: link %s: %w", path, err)
	}
	return nil
}
