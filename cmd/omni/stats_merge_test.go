package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/stats"
)

func TestStatsMergeCommand(t *testing.T) {
	dir := t.TempDir()
	r, err := stats.New(stats.Config{Dir: dir, Role: "stage0", PID: 11})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{1, 2, 3, 4, 100} {
		r.Add("sched.schedule_ms", v)
	}
	r.Close()
	// A dump in the original system's layout, same role, another process.
	other := `{"role": "stage0", "pid": 999, "started_at": 1.0, "dumped_at": 2.0, "counters": {"sched.schedule_ms": {"count": 5, "sum_ms": 5.0, "mean_ms": 1.0, "p50_ms": 1.0, "p95_ms": 1.0, "max_ms": 1.0}}}`
	os.WriteFile(filepath.Join(dir, "stage0_999.json"), []byte(other), 0o644)

	var out, errb bytes.Buffer
	if code := run([]string{"stats", "merge", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "| stage0 | sched.schedule_ms | 10 | 11.50 | 100.00 | 14.4% |"; !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "share of 80 ms") {
		t.Errorf("table:\n%s\nwant a row %q", out.String(), want)
	}
	out.Reset()
	if code := run([]string{"stats", "merge", "--json", dir}, &out, &errb); code != 0 {
		t.Fatalf("--json exit %d: %s", code, errb.String())
	}
	var doc struct {
		Roles       stats.Roles `json:"roles"`
		Attribution []stats.Row `json:"attribution"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Roles["stage0"]["sched.schedule_ms"]; s.Count != 10 || s.SumMS != 115 || s.P95MS != 100 || doc.Attribution[0].ShareOfFrame != 11.5/80 {
		t.Errorf("--json: %+v", doc)
	}
	if code := run([]string{"stats", "merge", t.TempDir()}, &out, &errb); code != 1 {
		t.Errorf("empty dir: exit %d, want 1", code)
	}
}
