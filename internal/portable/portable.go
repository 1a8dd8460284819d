// Package portable holds the one list of omni's portable packages: the
// control code that imports the standard library and other portable
// packages only, and builds with GOOS=wasip1 GOARCH=wasm and with -tags
// purego. CI (.ci/run) and the Taskfile read it through
// `go run ./internal/portable/list`; tests check that README.md and
// docs/ARCHITECTURE.md name the same packages (internal/docscheck) and that
// none of them pulls a host-only dependency.
package portable

// Packages returns the portable packages, module-relative and sorted (each
// with its subpackages).
func Packages() []string {
	return []string{"audio", "codec", "core", "predictor", "safetensors", "sampler", "sched", "speaker", "stats", "testvectors", "text", "voice", "wasm", "wcache"}
}

// Banned lists what no portable package may depend on (directly or
// not): the native kernels, the wazero host, the CLI and the machine probes.
func Banned() []string {
	return []string{
		"github.com/omni-tts/omni/simd", "github.com/omni-tts/omni/host", "github.com/omni-tts/omni/deploy",
		"github.com/tetratelabs/wazero", "github.com/alecthomas/kong", "github.com/klauspost/cpuid", "golang.org/x/sys",
	}
}
