// Package hubtest is a fake Hugging Face hub for tests: an httptest server
// that answers the hub's API shapes (model info with siblings, resolve URLs
// with ETag/X-Linked-Etag/X-Linked-Size/X-Repo-Commit headers, a 302 to a
// second "LFS CDN" server for LFS files, Range requests) and injects faults
// (a connection dropped mid-body, a corrupted blob, 5xx answers, a missing
// file, a gated repo).
package hubtest

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Server is a fake hub (Server.URL is the endpoint, as $HF_ENDPOINT) with
// its LFS CDN on a second listener (CDN).
type Server struct {
	*httptest.Server
	CDN *httptest.Server

	mu    sync.Mutex
	repos map[string]*Repo
	log   []Request
}

// Repo is one model repository on the fake hub. Set its fields before the
// client runs.
type Repo struct {
	ID     string
	Commit string
	// Files are the repo's files at Commit; paths ending in .safetensors are
	// stored in LFS (served by the CDN after a 302).
	Files map[string][]byte
	// Token, when set, makes the repo gated: requests without
	// "Authorization: Bearer <Token>" get 401.
	Token string
	// Missing files are listed in the model info but answer 404.
	Missing map[string]bool
	// CutAfter[path] = n: the first GET of path sends n bytes of the body,
	// with the full Content-Length, then drops the connection.
	CutAfter map[string]int64
	// Corrupt[path]: every GET serves the file with one byte changed.
	Corrupt map[string]bool
	// Fail[path] = n: the first n GETs of path answer 503.
	Fail map[string]int

	gets map[string]int
}

// Request is one request the fake hub or its CDN received.
type Request struct {
	Server string // "hub" or "cdn"
	Method string
	Path   string // the file path within the repo, or the URL path
	Range  string
	Auth   bool // an Authorization header was sent
}

// NewServer starts a fake hub and its CDN; Close stops both.
func NewServer() *Server {
	s := &Server{repos: map[string]*Repo{}}
	s.CDN = httptest.NewServer(http.HandlerFunc(s.serveCDN))
	api, files := http.NewServeMux(), http.NewServeMux()
	api.HandleFunc("GET /api/models/{org}/{name}/revision/{rev}", s.serveInfo)
	files.HandleFunc("/{org}/{name}/resolve/{rev}/{path...}", s.serveResolve)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			api.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	return s
}

// Close stops the hub and the CDN.
func (s *Server) Close() {
	s.Server.Close()
	s.CDN.Close()
}

// AddRepo puts a repo with these files on the hub, at a commit derived from
// its id, and returns it for fault settings.
func (s *Server) AddRepo(id string, files map[string][]byte) *Repo {
	sum := sha1.Sum([]byte("commit " + id))
	r := &Repo{ID: id, Commit: hex.EncodeToString(sum[:]), Files: files,
		Missing: map[string]bool{}, CutAfter: map[string]int64{}, Corrupt: map[string]bool{}, Fail: map[string]int{},
		gets: map[string]int{}}
	s.mu.Lock()
	s.repos[id] = r
	s.mu.Unlock()
	return r
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// IsLFS reports whether the fake hub stores path in LFS.
func IsLFS(path string) bool { return strings.HasSuffix(path, ".safetensors") }

// GitSHA1 is the git blob id of b: sha1("blob <len>\x00" + b), the etag of
// a small file.
func GitSHA1(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// SHA256 is the LFS oid of b.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// lfsPointer is the git-lfs pointer file stored in git for an LFS file.
func lfsPointer(b []byte) []byte {
	return fmt.Appendf(nil, "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", SHA256(b), len(b))
}

func (s *Server) record(srv string, r *http.Request, path string) {
	s.mu.Lock()
	s.log = append(s.log, Request{Server: srv, Method: r.Method, Path: path, Range: r.Header.Get("Range"), Auth: r.Header.Get("Authorization") != ""})
	s.mu.Unlock()
}

// lookup finds the repo and checks its token and the revision.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (*Repo, bool) {
	id := r.PathValue("org") + "/" + r.PathValue("name")
	s.mu.Lock()
	repo := s.repos[id]
	s.mu.Unlock()
	if repo == nil {
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return nil, false
	}
	if repo.Token != "" && r.Header.Get("Authorization") != "Bearer "+repo.Token {
		hubError(w, http.StatusUnauthorized, "GatedRepo", "Access to model "+id+" is restricted.")
		return nil, false
	}
	if rev := r.PathValue("rev"); rev != "main" && rev != repo.Commit {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return nil, false
	}
	return repo, true
}

// hubError answers like the hub: X-Error-Code and X-Error-Message headers
// and a JSON body {"error": message}.
func hubError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("X-Error-Code", code)
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// serveInfo answers /api/models/{org}/{name}/revision/{rev}?blobs=true.
func (s *Server) serveInfo(w http.ResponseWriter, r *http.Request) {
	s.record("hub", r, r.URL.Path)
	repo, ok := s.lookup(w, r)
	if !ok {
		return
	}
	type lfs struct {
		SHA256      string `json:"sha256"`
		Size        int    `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type sib struct {
		Name   string `json:"rfilename"`
		Size   int    `json:"size"`
		BlobID string `json:"blobId"`
		LFS    *lfs   `json:"lfs,omitempty"`
	}
	var sibs []sib
	names := make([]string, 0, len(repo.Files))
	for p := range repo.Files {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		b := repo.Files[p]
		if IsLFS(p) {
			ptr := lfsPointer(b)
			sibs = append(sibs, sib{p, len(b), GitSHA1(ptr), &lfs{SHA256(b), len(b), len(ptr)}})
		} else {
			sibs = append(sibs, sib{Name: p, Size: len(b), BlobID: GitSHA1(b)})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": repo.ID, "modelId": repo.ID, "sha": repo.Commit, "private": repo.Token != "", "siblings": sibs})
}

// serveResolve answers HEAD and GET /{org}/{name}/resolve/{rev}/{path}.
func (s *Server) serveResolve(w http.ResponseWriter, r *http.Request) {
	path := r.PathValue("path")
	s.record("hub", r, path)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	repo, ok := s.lookup(w, r)
	if !ok {
		return
	}
	b, ok := repo.Files[path]
	if !ok || repo.Missing[path] {
		hubError(w, http.StatusNotFound, "EntryNotFound", path+" does not exist on \"main\"")
		return
	}
	h := w.Header()
	h.Set("X-Repo-Commit", repo.Commit)
	if IsLFS(path) {
		h.Set("ETag", `"`+GitSHA1(lfsPointer(b))+`"`)
		h.Set("X-Linked-Etag", `"`+SHA256(b)+`"`)
		h.Set("X-Linked-Size", fmt.Sprint(len(b)))
		h.Set("Location", s.CDN.URL+"/repos/"+SHA256(b)[:8]+"/"+SHA256(b)+"?"+url.Values{"repo": {repo.ID}, "path": {path}}.Encode())
		w.WriteHeader(http.StatusFound)
		return
	}
	h.Set("ETag", `"`+GitSHA1(b)+`"`)
	if r.Method == http.MethodGet {
		s.serveBody(w, r, repo, path, b)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(b)))
}

// serveCDN answers the LFS CDN's signed URLs.
func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	path := q.Get("path")
	s.record("cdn", r, path)
	s.mu.Lock()
	repo := s.repos[q.Get("repo")]
	s.mu.Unlock()
	if repo == nil || repo.Files[path] == nil || r.Method != http.MethodGet {
		http.Error(w, "no such object", http.StatusNotFound)
		return
	}
	s.serveBody(w, r, repo, path, repo.Files[path])
}

// serveBody serves b with Range support, applying the repo's faults.
func (s *Server) serveBody(w http.ResponseWriter, r *http.Request, repo *Repo, path string, b []byte) {
	s.mu.Lock()
	repo.gets[path]++
	n := repo.gets[path]
	fail, cut, corrupt := repo.Fail[path], repo.CutAfter[path], repo.Corrupt[path]
	s.mu.Unlock()
	if n <= fail {
		http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
		return
	}
	if corrupt {
		b = bytes.Clone(b)
		b[len(b)/2] ^= 0xff
	}
	if n == 1 && cut > 0 && r.Header.Get("Range") == "" {
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b[:cut])
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}
