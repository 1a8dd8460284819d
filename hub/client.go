package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultEndpoint is the public hub, used when $HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// Options configure Pull. The zero value pulls from $HF_ENDPOINT (default
// the public hub) with $HF_TOKEN into CacheDir(), without progress output.
type Options struct {
	// Endpoint is the hub's base URL; empty means $HF_ENDPOINT or DefaultEndpoint.
	Endpoint string
	// Token is sent as "Authorization: Bearer"; empty means $HF_TOKEN.
	Token string
	// CacheDir is the hub cache; empty means CacheDir().
	CacheDir string
	// HTTP is the client; nil means a client with no overall timeout.
	HTTP *http.Client
	// Progress receives progress lines (nil: none); Terminal redraws one
	// line per file with carriage returns instead of printing plain lines.
	Progress io.Writer
	Terminal bool
	// Retries is how many times a request is retried after a 5xx, a 429 or
	// a dropped connection (default 5); Backoff is the first wait, doubled
	// each retry up to 30 s (default 1 s).
	Retries int
	Backoff time.Duration
}

// client is one pull's view of the hub.
type client struct {
	endpoint, token string
	http            *http.Client
	noFollow        *http.Client
	retries         int
	backoff         time.Duration
	progress        io.Writer // retry notices, when set
}

// maxBackoff caps the doubling wait between retries.
const maxBackoff = 30 * time.Second

func newClient(o *Options) *client {
	c := &client{endpoint: o.Endpoint, token: o.Token, http: o.HTTP, retries: o.Retries, backoff: o.Backoff, progress: o.Progress}
	if c.endpoint == "" {
		c.endpoint = os.Getenv("HF_ENDPOINT")
	}
	if c.endpoint == "" {
		c.endpoint = DefaultEndpoint
	}
	c.endpoint = strings.TrimRight(c.endpoint, "/")
	if c.token == "" {
		c.token = os.Getenv("HF_TOKEN")
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	dl := *c.http
	dl.CheckRedirect = dropAuthOffHost(c.http.CheckRedirect)
	c.http = &dl
	nf := *c.http
	nf.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.noFollow = &nf
	if c.retries <= 0 {
		c.retries = 5
	}
	if c.backoff <= 0 {
		c.backoff = time.Second
	}
	return c
}

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// dropAuthOffHost wraps a redirect policy so the token goes only to the
// host it was meant for: the LFS CDN's signed URL needs none, and some
// storage refuses a request that carries two credentials (huggingface_hub
// drops it the same way). Go itself keeps it for subdomains.
func dropAuthOffHost(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && req.URL.Host != via[0].URL.Host {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			// final: a loop does not end by retrying it
			return &finalError{fmt.Errorf("hub: redirect loop: stopped after %d redirects, the last to %s", len(via), req.URL)}
		}
		return nil
	}
}

// modelInfo is the part of /api/models/{repo}/revision/{rev}?blobs=true
// a pull reads.
type modelInfo struct {
	ID       string    `json:"id"`
	SHA      string    `json:"sha"`
	Siblings []sibling `json:"siblings"`
}

// sibling is one file of the revision; LFS is set for files stored in Git
// LFS, with the sha256 of their content.
type sibling struct {
	Name   string `json:"rfilename"`
	Size   int64  `json:"size"`
	BlobID string `json:"blobId"`
	LFS    *struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	} `json:"lfs"`
}

// request builds a request with the token and identity encoding (so sizes
// and ranges are in stored bytes).
func (c *client) request(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, fmt.Errorf("hub: %s %s: %w", method, u, err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", "omni-pull")
	return req, nil
}

// statusError turns a non-success response into an *HTTPError (and closes
// its body).
func statusError(resp *http.Response, repo, file string) error {
	defer resp.Body.Close()
	msg := resp.Header.Get("X-Error-Message")
	if msg == "" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		var j struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &j) == nil {
			msg = j.Error
		}
	}
	return &HTTPError{Repo: repo, File: file, URL: resp.Request.URL.String(), Status: resp.StatusCode, Message: msg}
}

// info fetches the revision's commit and file list.
func (c *client) info(ctx context.Context, r Repo) (*modelInfo, error) {
	u := fmt.Sprintf("%s/api/models/%s/revision/%s?blobs=true", c.endpoint, r.ID, url.PathEscape(r.Revision))
	var mi *modelInfo
	err := c.retry(ctx, func() error {
		req, err := c.request(ctx, http.MethodGet, u)
		if err != nil {
			return err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return fmt.Errorf("hub: repo %s: model info: %w", r.ID, err)
		}
		if resp.StatusCode != http.StatusOK {
			return statusError(resp, r.ID, "")
		}
		defer resp.Body.Close()
		mi = new(modelInfo)
		if err := json.NewDecoder(resp.Body).Decode(mi); err != nil {
			return &finalError{fmt.Errorf("hub: repo %s: model info: %w", r.ID, err)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !commitPattern.MatchString(mi.SHA) {
		return nil, fmt.Errorf("hub: repo %s: model info gives commit %q, not a commit hash", r.ID, mi.SHA)
	}
	return mi, nil
}

// fileURL is the resolve URL of path at commit.
func (c *client) fileURL(r Repo, commit, path string) string {
	return fmt.Sprintf("%s/%s/resolve/%s/%s", c.endpoint, r.ID, url.PathEscape(commit), (&url.URL{Path: path}).EscapedPath())
}

// fileMeta is what HEAD on a resolve URL says about a file.
type fileMeta struct {
	Commit string
	ETag   string // normalized: no W/ prefix, no quotes
	Size   int64
}

// maxHeadRedirects bounds the same-host redirects without an etag a HEAD
// follows (a renamed repo redirects once).
const maxHeadRedirects = 3

// head reads a file's commit, etag and size without following the LFS
// redirect: X-Linked-Etag and X-Linked-Size (LFS files) win over ETag and
// Content-Length. A redirect without an etag (a renamed repo) is followed
// on the same host.
func (c *client) head(ctx context.Context, r Repo, commit, path string) (fileMeta, error) {
	u := c.fileURL(r, commit, path)
	var m fileMeta
	err := c.retry(ctx, func() error {
		cur := u
		for hops := 0; ; hops++ {
			req, err := c.request(ctx, http.MethodHead, cur)
			if err != nil {
				return err
			}
			resp, err := c.noFollow.Do(req)
			if err != nil {
				return fmt.Errorf("hub: repo %s file %s: %w", r.ID, path, err)
			}
			resp.Body.Close()
			h := resp.Header
			etag := h.Get("X-Linked-Etag")
			if etag == "" {
				etag = h.Get("ETag")
			}
			if resp.StatusCode >= 300 && resp.StatusCode < 400 && etag == "" {
				loc, err := resp.Request.URL.Parse(h.Get("Location"))
				switch {
				case h.Get("Location") == "" || err != nil:
					return &finalError{fmt.Errorf("hub: repo %s file %s: HEAD %s: HTTP %d redirect with no usable Location (%q) and no etag", r.ID, path, cur, resp.StatusCode, h.Get("Location"))}
				case loc.Host != resp.Request.URL.Host:
					return &finalError{fmt.Errorf("hub: repo %s file %s: HEAD %s: redirect to %s on another host without an etag", r.ID, path, cur, loc)}
				case hops >= maxHeadRedirects:
					return &finalError{fmt.Errorf("hub: repo %s file %s: HEAD redirect loop: stopped after %d redirects without an etag, the last to %s", r.ID, path, hops+1, loc)}
				}
				cur = loc.String()
				continue
			}
			if resp.StatusCode >= 400 {
				return statusError(resp, r.ID, path)
			}
			m = fileMeta{Commit: h.Get("X-Repo-Commit"), ETag: normalizeETag(etag), Size: -1}
			size := h.Get("X-Linked-Size")
			if size == "" {
				size = h.Get("Content-Length")
			}
			if n, err := strconv.ParseInt(size, 10, 64); err == nil && n >= 0 {
				m.Size = n
			}
			if m.ETag == "" {
				return &finalError{fmt.Errorf("hub: repo %s file %s: HEAD %s answered HTTP %d without an ETag or X-Linked-Etag header", r.ID, path, cur, resp.StatusCode)}
			}
			if m.Size < 0 {
				return &finalError{fmt.Errorf("hub: repo %s file %s: HEAD %s answered HTTP %d without a size (X-Linked-Size or Content-Length %q)", r.ID, path, cur, resp.StatusCode, size)}
			}
			return nil
		}
	})
	return m, err
}

// normalizeETag drops a weak "W/" prefix and the quotes.
func normalizeETag(s string) string {
	return strings.Trim(strings.TrimPrefix(s, "W/"), `"`)
}

// retry runs f until it succeeds, fails for good, or has been retried
// c.retries times, sleeping c.backoff, 2·c.backoff, … (≤ 30 s) in between.
func (c *client) retry(ctx context.Context, f func() error) error {
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		err := f()
		if err == nil || !transient(ctx, err) || attempt >= c.retries {
			return err
		}
		if c.progress != nil {
			fmt.Fprintf(c.progress, "retry %d/%d in %s: %v\n", attempt+1, c.retries, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, maxBackoff)
	}
}

// transient reports whether err is worth a retry: a 5xx or 429, or a
// network failure (refused, reset, cut mid-body). Client errors (4xx), a
// checksum mismatch, local file errors and cancellation are final.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, ErrChecksum) {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.retryable()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return false
	}
	var fe *finalError
	return !errors.As(err, &fe)
}

// finalError marks an error no retry can fix (a malformed answer).
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }
