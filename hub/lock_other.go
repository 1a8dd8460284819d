//go:build !unix

package hub

import "context"

// lockFile is a no-op where flock(2) does not exist: concurrent pulls into
// one cache are not coordinated there.
func lockFile(context.Context, string, func()) (func(), error) { return func() {}, nil }
