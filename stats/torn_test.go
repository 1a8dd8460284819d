package stats

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// envTornChild makes the test binary act as a process that dumps big files
// in a loop until it is killed.
const envTornChild = "OMNI_STATS_TORN_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(envTornChild); dir != "" {
		tornChild(dir)
		return
	}
	os.Exit(m.Run())
}

// tornChild dumps forever: every dump holds 2000 counters, all with the same
// count, so a reader can tell a complete dump from a torn one.
func tornChild(dir string) {
	r, err := New(Config{Dir: dir, Role: "stage0", PID: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cs := make([]*Counter, 2000)
	for i := range cs {
		cs[i] = r.Counter(fmt.Sprintf("counter_%04d_ms", i))
	}
	for round := 1; ; round++ {
		for _, c := range cs {
			c.mu.Lock() // add without waking the dumper: Flush below is the only writer
			c.s.Add(float64(round))
			c.mu.Unlock()
		}
		if err := slowFlush(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// slowFlush is Flush with the file written in 4 KiB pieces 200 µs apart, so
// that most kills land while the temporary file is half written.
func slowFlush(r *Recorder) error {
	d := Dump{Role: r.role, PID: r.pid, StartedAt: unixSeconds(r.started), Counters: r.Summaries()}
	d.DumpedAt = unixSeconds(r.clock.Now())
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(r.path, b, func(f *os.File, b []byte) error {
		for len(b) > 0 {
			n := min(len(b), 4096)
			if _, err := f.Write(b[:n]); err != nil {
				return err
			}
			b = b[n:]
			time.Sleep(200 * time.Microsecond)
		}
		return nil
	})
}

func TestKillMidDumpLeavesLastGoodFile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if runtime.GOOS == "wasip1" || runtime.GOOS == "js" {
		t.Skip("no processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	torn := 0
	for trial := 0; trial < 6; trial++ {
		dir := t.TempDir()
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), envTornChild+"="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "stage0_1.json")
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(path); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child wrote no dump (stderr: %s)", stderr.String())
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(5+trial*13) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		if _, err := os.Stat(path + ".tmp"); err == nil {
			torn++ // killed while a dump was being written
		}
		d, err := ReadDump(path)
		if err != nil {
			t.Fatalf("trial %d: dump after kill is unreadable: %v", trial, err)
		}
		if len(d.Counters) != 2000 {
			t.Fatalf("trial %d: dump has %d counters, want 2000", trial, len(d.Counters))
		}
		want := d.Counters["counter_0000_ms"].Count
		for name, s := range d.Counters {
			if s.Count != want {
				t.Fatalf("trial %d: %s count %d, %s count %d: a mixed dump", trial, name, s.Count, "counter_0000_ms", want)
			}
		}
		m, err := Merge(dir)
		if err != nil || len(m.Files) != 1 || len(m.Skipped) != 0 {
			t.Fatalf("trial %d: Merge = files %v skipped %v err %v; want the one dump", trial, m.Files, m.Skipped, err)
		}
	}
	if torn == 0 {
		t.Errorf("no kill of 6 landed mid-write (no temporary file left): the test did not exercise a torn write")
	}
	t.Logf("%d of 6 kills landed while a temporary file was half written", torn)
}
