// Package docscheck holds tests that keep the docs true to the code:
// docs/ARCHITECTURE.md's package table against `go list`, and the
// portable-package lists of README.md and ARCHITECTURE.md against
// internal/portable. It has no code of its own.
package docscheck
