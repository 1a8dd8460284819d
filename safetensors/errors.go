package safetensors

import (
	"errors"
	"fmt"
)

// Sentinel errors of the reader. Every error it returns wraps one of these
// (or a *TensorError carrying the details), so callers can test them with
// errors.Is.
var (
	// ErrFormat reports a malformed safetensors file: bad header length,
	// malformed JSON, unknown dtype, inconsistent sizes or offsets.
	ErrFormat = errors.New("safetensors: malformed safetensors")
	// ErrTruncated reports a file shorter than its header says.
	ErrTruncated = errors.New("safetensors: truncated file")
	// ErrNoTensor reports a tensor that is not in the file.
	ErrNoTensor = errors.New("safetensors: no such tensor")
	// ErrDType reports a tensor whose dtype the requested conversion cannot
	// read exactly (e.g. F64 into float32).
	ErrDType = errors.New("safetensors: unsupported dtype")
	// ErrShape reports a read whose destination or row range does not fit
	// the tensor's shape.
	ErrShape = errors.New("safetensors: shape mismatch")
	// ErrClosed reports a read from a closed file.
	ErrClosed = errors.New("safetensors: read after close")
)

// TensorError reports a failure concerning one tensor of one file; Err is the
// underlying cause (often one of the sentinels) and is reachable through
// errors.Is/As.
type TensorError struct {
	File  string // file (or model spec) holding the tensor
	Name  string // tensor name
	Index int    // element index the failure concerns, or -1
	Err   error  // cause
}

// Error implements error.
func (e *TensorError) Error() string {
	s := "safetensors: "
	if e.File != "" {
		s += e.File + ": "
	}
	s += "tensor " + e.Name
	if e.Index >= 0 {
		s += fmt.Sprintf(" [%d]", e.Index)
	}
	return s + ": " + TrimPackage(e.Err.Error())
}

// Unwrap returns the cause.
func (e *TensorError) Unwrap() error { return e.Err }

// TrimPackage drops a leading package prefix ("pkg: ", a lower-case word
// then a colon and a space, as every omni error starts) so that a message
// wrapped in another package's does not repeat a package name.
func TrimPackage(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			continue
		}
		if i > 0 && c == ':' && i+1 < len(s) && s[i+1] == ' ' {
			return s[i+2:]
		}
		return s
	}
	return s
}

// formatError builds an ErrFormat-wrapping error with a precise message.
func formatError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

// fileError prefixes an error with the file it concerns, keeping the cause
// reachable through errors.Is/As.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return "safetensors: " + e.path + ": " + TrimPackage(e.err.Error())
}
func (e *fileError) Unwrap() error { return e.err }

// inFile wraps err with the file path (nil stays nil).
func inFile(path string, err error) error {
	if err == nil {
		return nil
	}
	return &fileError{path: path, err: err}
}

// errorf builds an error wrapping the sentinel base with a precise message.
func errorf(base error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{base}, args...)...)
}
