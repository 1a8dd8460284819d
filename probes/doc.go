// Package probes replays the hostile HTTP probes of issue 24 against a live
// `omni serve --model synth:tiny` built from this checkout: its test builds
// the omni binary, starts it on a loopback port and asserts every row (the
// poison request, 429 past --max-waiting, 405, 413, 408, text that is not
// text, max_new_tokens 1, slowloris against the per-client cap, the drain
// that aborts cut streams and answers queued ones 503, and a SIGTERM right
// after start). It has no code besides its test; it runs in `go test ./...`.
package probes
