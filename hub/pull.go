package hub

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
)

// Result is what Pull fetched: the repo, the commit its revision resolved
// to, the snapshot directory (pass it to predictor.OpenModel), and each
// file.
type Result struct {
	Repo   Repo
	Commit string
	Dir    string
	Files  []File
}

// File is one pulled file: its path in the repo, size, etag (the blob
// name), whether it is an LFS file checked by sha256, and whether this pull
// downloaded it (false: the blob was already in the cache).
type File struct {
	Path       string
	Size       int64
	ETag       string
	LFS        bool
	Downloaded bool
}

// puller is one Pull in progress.
type puller struct {
	c        *client
	cache    Cache
	repo     Repo
	commit   string
	progress io.Writer
	terminal bool
}

// Pull downloads the files a Qwen3-TTS checkpoint needs from repo
// "ORG/NAME[@REVISION]" into the hub cache (see the package comment):
// config.json, generation_config.json, the tokenizer files, model.safetensors
// or the shards its index lists, and speech_tokenizer/'s config and weights.
// It writes refs/<revision> last, so Resolve finds only complete snapshots.
func Pull(ctx context.Context, spec string, o Options) (*Result, error) {
	r, err := ParseRepo(spec)
	if err != nil {
		return nil, err
	}
	cacheDir := o.CacheDir
	if cacheDir == "" {
		if cacheDir, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	p := &puller{c: newClient(&o), cache: Cache{Dir: cacheDir}, repo: r, progress: o.Progress, terminal: o.Terminal}
	mi, err := p.c.info(ctx, r)
	if err != nil {
		return nil, err
	}
	p.commit = mi.SHA
	byName := map[string]sibling{}
	var listed []string
	for _, s := range mi.Siblings {
		byName[s.Name] = s
		listed = append(listed, s.Name)
	}
	want, sharded, err := selectFiles(r.ID, listed)
	if err != nil {
		return nil, err
	}
	if p.progress != nil {
		fmt.Fprintf(p.progress, "pull %s: commit %s, %d files to check, cache %s\n", r, p.commit, len(want), p.cache.RepoDir(r))
		if !slices.Contains(want, codecDir+"model.safetensors") {
			fmt.Fprintf(p.progress, "pull %s: note: the repo has no %smodel.safetensors (the codec decoder's weights)\n", r, codecDir)
		}
	}
	res := &Result{Repo: r, Commit: p.commit, Dir: p.cache.SnapshotDir(r, p.commit)}
	for i := 0; i < len(want); i++ {
		f, err := p.pullFile(ctx, want[i], byName[want[i]])
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, f)
		if sharded && want[i] == indexFile {
			idx, err := os.ReadFile(p.cache.BlobPath(r, f.ETag))
			if err != nil {
				return nil, fmt.Errorf("hub: %w", err)
			}
			shards, err := shardsOf(r.ID, idx, listed)
			if err != nil {
				return nil, err
			}
			want = slices.Insert(want, i+1, shards...)
		}
	}
	if err := p.cache.writeRef(r, p.commit); err != nil {
		return nil, err
	}
	return res, nil
}

// pullFile fetches one file into its blob and links it into the snapshot.
func (p *puller) pullFile(ctx context.Context, path string, s sibling) (File, error) {
	m, err := p.c.head(ctx, p.repo, p.commit, path)
	if err != nil {
		return File{}, err
	}
	if m.Commit != "" && m.Commit != p.commit {
		return File{}, fmt.Errorf("hub: repo %s file %s: served from commit %s, the model info said %s", p.repo.ID, path, m.Commit, p.commit)
	}
	want := ""
	if s.LFS != nil {
		want = s.LFS.SHA256
		if m.ETag != want || m.Size != s.LFS.Size {
			return File{}, fmt.Errorf("hub: repo %s file %s: HEAD says etag %s size %d, the model info says LFS sha256 %s size %d",
				p.repo.ID, path, m.ETag, m.Size, want, s.LFS.Size)
		}
	}
	if m.ETag == "" || m.ETag != normalizeETag(m.ETag) || !isSafeName(m.ETag) {
		return File{}, fmt.Errorf("hub: repo %s file %s: etag %q cannot name a blob", p.repo.ID, path, m.ETag)
	}
	got, err := p.fetch(ctx, path, m, want)
	if err != nil {
		return File{}, err
	}
	if err := p.cache.link(p.repo, p.commit, path, m.ETag); err != nil {
		return File{}, err
	}
	if !got && p.progress != nil {
		fmt.Fprintf(p.progress, "%s  %s already in the cache\n", path, bytesStr(m.Size))
	}
	return File{Path: path, Size: m.Size, ETag: m.ETag, LFS: want != "", Downloaded: got}, nil
}

// isSafeName reports whether an etag can be a file name in blobs/.
func isSafeName(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
