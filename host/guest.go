package host

import _ "embed"

// The guest module: omni's control core built as a WASI reactor from
// ../wasm/guest with the pinned toolchain. The build is reproducible
// (-trimpath, -buildvcs=false), and a test rebuilds it and fails when the
// committed file differs from the sources.
//
//go:generate env GOFLAGS= GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -buildmode=c-shared -trimpath -buildvcs=false -o guest.wasm ../wasm/guest

// guestWasm is the embedded guest module (a WASI reactor).
//
//go:embed guest.wasm
var guestWasm []byte

// Guest returns a copy of the embedded guest module's bytes.
func Guest() []byte { return append([]byte(nil), guestWasm...) }
