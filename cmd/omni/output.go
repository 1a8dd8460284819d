package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/omni-tts/omni/host"
)

// writeJSON writes v as JSON (indented when indent) to path, or to stdout
// when path is empty. A file is written whole or not at all: it is
// written beside path and renamed over it.
func writeJSON(stdout io.Writer, path string, v any, indent bool) error {
	if path == "" {
		return encodeJSON(stdout, v, indent)
	}
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	err = encodeJSON(f, v, indent)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// encodeJSON writes one JSON value to w.
func encodeJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// panicError is a recovered Go panic: a bug, reported with its stack and
// its own exit code (never 2, which says a conformance case failed).
type panicError struct {
	value any
	stack []byte
}

// Error implements error.
func (p *panicError) Error() string {
	return fmt.Sprintf("BUG: panic: %v\n%s", p.value, p.stack)
}

// ExitCode implements exitCoder.
func (p *panicError) ExitCode() int { return exitBug }

// guard runs f, turning a panic into a *panicError (for the goroutines a
// command starts; run guards the command itself).
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	err = f()
	var hp *host.PanicError // the engine's loop panicked (host.Engine.Start)
	if errors.As(err, &hp) {
		return &panicError{value: hp.Value, stack: hp.Stack}
	}
	return err
}

// isPanic reports whether err is a recovered panic.
func isPanic(err error) bool {
	var p *panicError
	return errors.As(err, &p)
}
