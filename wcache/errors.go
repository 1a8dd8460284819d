package wcache

import (
	"errors"
	"fmt"
)

// Reasons a cache file is refused; Open's errors wrap exactly one of them
// (errors.Is), with the file and the detail in the message.
var (
	// ErrTruncated: the file is shorter than its header says.
	ErrTruncated = errors.New("truncated")
	// ErrForeign: the file is not an omni cache file.
	ErrForeign = errors.New("not an omni cache file")
	// ErrVersion: the file has another format version.
	ErrVersion = errors.New("other format version")
	// ErrStale: the file was made from other inputs (another checkpoint,
	// a checkpoint since rewritten, another precision or kernel layout).
	ErrStale = errors.New("made from other inputs")
	// ErrDamaged: a checksum does not match (header, manifest or a blob),
	// or the manifest does not describe the file.
	ErrDamaged = errors.New("damaged")
	// ErrMissing: an object lacks a field its reader asked for.
	ErrMissing = errors.New("missing field")
)

// errorf returns an error wrapping reason with a formatted detail.
func errorf(reason error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", reason, fmt.Sprintf(format, args...))
}
