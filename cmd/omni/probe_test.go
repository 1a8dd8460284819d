package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestHostileFlags keeps the probes a hostile user tried: every size-like
// flag out of its bound, an empty --text, a negative value after a space,
// a removed flag. Each is refused by name, before any model is loaded,
// with the one usage exit code (80), whether kong or a bound finds it.
func TestHostileFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string // OMNI_THREADS value, when set
		want string // substring of stderr
	}{
		{args: []string{"run", "--threads", "100000"}, want: "--threads (OMNI_THREADS) 100000 outside [0, 1024]"},
		{args: []string{"run", "--threads=-1"}, want: "--threads (OMNI_THREADS) -1 outside [0, 1024]"},
		{args: []string{"run"}, env: "-5", want: "--threads (OMNI_THREADS) -5 outside [0, 1024]"},
		{args: []string{"run", "--hop-depth", "1e14"}, want: "--hop-depth"},
		{args: []string{"run", "--hop-depth", "100000000000000"}, want: "--hop-depth 100000000000000 outside [1, 4096]"},
		{args: []string{"run", "--hop-depth", "0"}, want: "--hop-depth 0 outside [1, 4096]"},
		{args: []string{"run", "--text-ids", ","}, want: `--text-ids "," holds no ids`},
		{args: []string{"run", "--text-ids", ""}, want: `--text-ids "" holds no ids`},
		{args: []string{"decode", "x.json", "-o", "x.wav", "--chunk", "-1"}, want: "--chunk -1 outside [0, 1048576]"},
		{args: []string{"say", "   ", "-o", "x.wav"}, want: "the text is empty"},
		{args: []string{"serve", "--fake", "--max-waiting", "-1"}, want: "serve: --max-waiting -1 outside [1, 1048576]"},
		{args: []string{"serve", "--fake", "--max-body", "0"}, want: "serve: --max-body 0 outside [1, 1073741824]"},
		{args: []string{"serve", "--fake", "--max-connections", "0"}, want: "serve: --max-connections 0 outside [1, 1048576]"},
		{args: []string{"serve", "--fake", "--grace", "-1s"}, want: "serve: --grace -1s is negative"},
		{args: []string{"run", "--text-ids", "1,x"}, want: `--text-ids id "x" is not a non-negative 32-bit integer`},
		{args: []string{"run", "--text-ids", "-4"}, want: `--text-ids id "-4" is not a non-negative 32-bit integer`},
		{args: []string{"run", "--max-frames", "-1"}, want: "--max-frames -1 outside [0, 1048576]"},
		{args: []string{"run", "--max-frames", "99999999"}, want: "--max-frames 99999999 outside [0, 1048576]"},
		{args: []string{"run", "--min-frames", "-3"}, want: "--min-frames -3 outside [0, 1048576]"},
		{args: []string{"run", "--max-new-tokens", "0"}, want: "--max-new-tokens 0 outside [1, 1048576]"},
		{args: []string{"run", "--frames-per-token", "-2"}, want: "--frames-per-token -2 outside [1, 1048576]"},
		{args: []string{"run", "--frame-floor", "1000000000"}, want: "--frame-floor 1000000000 outside [1, 1048576]"},
		{args: []string{"run", "--verbose"}, want: "unknown flag --verbose"},
		{args: []string{"bench", "e2e", "--streams", "0"}, want: "bench e2e: --streams 0 outside [1, 1024]"},
		{args: []string{"bench", "e2e", "--streams", "100000"}, want: "bench e2e: --streams 100000 outside [1, 1024]"},
		{args: []string{"bench", "e2e", "--frames", "1"}, want: "bench e2e: --frames 1 outside [2, 1048576]"},
		{args: []string{"bench", "e2e", "--warmup", "-1"}, want: "bench e2e: --warmup -1 outside [0, 1048576]"},
		{args: []string{"bench", "e2e", "--repeat", "0", "--wasm"}, want: "bench e2e: --repeat 0 outside [1, 1000]"},
		{args: []string{"bench", "e2e", "--hop-depth", "100000"}, want: "--hop-depth 100000 outside [1, 4096]"},
		{args: []string{"bench", "predictor", "--batch", "100000"}, want: "bench predictor: --batch 100000 outside [1, 1024]"},
		{args: []string{"bench", "talker", "--prompt", "0"}, want: "bench talker: --prompt 0 outside [1, 1048576]"},
		{args: []string{"bench", "talker", "--prefills", "-1"}, want: "bench talker: --prefills -1 outside [0, 1000]"},
		{args: []string{"bench", "sampler", "--vocab", "1"}, want: "bench sampler: --vocab 1 outside [2, 1048576]"},
		{args: []string{"bench", "kernels", "--gib", "1000"}, want: "bench kernels: --gib 1000 outside (0, 64]"},
		{args: []string{"bench", "kernels", "--reps", "0"}, want: "bench kernels: --reps 0 outside [1, 1000]"},
		{args: []string{"sweep", "--sweep-threads", "1,100000"}, want: "sweep: --sweep-threads entry 100000 outside [1, 1024]"},
		{args: []string{"sweep", "--streams", "0"}, want: "sweep: --streams entry 0 outside [1, 1024]"},
		{args: []string{"sweep", "--frames", "1"}, want: "sweep: --frames 1 outside [2, 1048576]"},
	} {
		name := strings.Join(tc.args, " ")
		if tc.env != "" {
			t.Setenv("OMNI_THREADS", tc.env)
			name = "OMNI_THREADS=" + tc.env + " " + name
		} else {
			t.Setenv("OMNI_THREADS", "") // restored after the test
			os.Unsetenv("OMNI_THREADS")
		}
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want the usage code %d; stderr %s", name, code, exitUsage, errb.String())
		}
		if !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: stderr %q lacks %q", name, errb.String(), tc.want)
		}
		if strings.Contains(errb.String(), "panic") {
			t.Errorf("%s: panicked: %s", name, errb.String())
		}
	}
}
