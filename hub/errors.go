package hub

import (
	"errors"
	"fmt"
)

// ErrNotCached reports an ORG/NAME model spec whose revision is not in the
// local cache; the message says to run omni pull.
var ErrNotCached = errors.New("not in the Hugging Face cache")

// ErrChecksum reports a downloaded file whose sha256 (LFS files) or git blob
// sha1 (small files) differs from the one the hub publishes.
var ErrChecksum = errors.New("checksum mismatch")

// HTTPError is a refused hub request: the repo, the file (empty for the model
// info request), the URL and the HTTP status, with the hub's X-Error-Message
// when it sent one.
type HTTPError struct {
	Repo, File, URL string
	Status          int
	Message         string
}

// Error names the repo and the file, and for 401 and 403 says how to
// authenticate.
func (e *HTTPError) Error() string {
	what := "repo " + e.Repo
	if e.File != "" {
		what = fmt.Sprintf("%s file %s", what, e.File)
	}
	var hint string
	switch e.Status {
	case 401, 403:
		hint = ": the repo is private or gated, or the token lacks access; set HF_TOKEN to a Hugging Face token that can read it"
	case 404:
		if e.File == "" {
			hint = ": no such repo or revision on the hub (check ORG/NAME and --revision)"
		} else {
			hint = ": the file is not in this revision"
		}
	}
	msg := ""
	if e.Message != "" {
		msg = " (" + e.Message + ")"
	}
	return fmt.Sprintf("hub: %s: HTTP %d%s%s", what, e.Status, msg, hint)
}

// retryable reports whether the status is worth another try (5xx, 429).
func (e *HTTPError) retryable() bool { return e.Status >= 500 || e.Status == 429 }
