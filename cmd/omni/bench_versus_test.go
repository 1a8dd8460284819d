package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBenchVersusRefuses: --versus needs --codes-only and native runs, and
// a precision it knows; each refusal names the flag, before any model loads.
func TestBenchVersusRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "e2e", "--model", "synth:tiny", "--versus", "int8"}, "--codes-only"},
		{[]string{"bench", "e2e", "--model", "synth:tiny", "--codes-only", "--wasm", "--versus", "int8"}, "--wasm"},
		{[]string{"bench", "e2e", "--model", "synth:tiny", "--codes-only", "--versus", "int3"}, "--versus"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code == exitOK {
			t.Errorf("omni %v: exit 0, want a refusal", c.args)
		} else if !strings.Contains(errb.String(), c.want) {
			t.Errorf("omni %v: stderr %q does not name %s", c.args, errb.String(), c.want)
		}
	}
}
