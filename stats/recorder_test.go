package stats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDisabledRecorderIsNoop(t *testing.T) {
	r, err := New(Config{})
	if err != nil || r != nil {
		t.Fatalf("New with no directory = %v, %v; want nil, nil", r, err)
	}
	if r.Enabled() {
		t.Error("nil recorder reports Enabled")
	}
	r.Add("x", 1)
	r.Start("x").Stop()
	ran := 0
	r.Time("x", func() { ran++ })
	f := func() { ran++ }
	w := r.Wrap("x", f)
	w()
	if ran != 2 {
		t.Errorf("disabled Time/Wrap ran f %d times, want 2", ran)
	}
	c := r.Counter("x")
	if c != nil {
		t.Errorf("disabled Counter = %p, want nil", c)
	}
	c.Add(3)
	c.Start().Stop()
	c.Time(func() { ran++ })
	if ran != 3 {
		t.Errorf("nil Counter.Time did not run f")
	}
	if s := r.Summaries(); s != nil {
		t.Errorf("disabled Summaries = %v, want nil", s)
	}
	if err := r.Flush(); err != nil {
		t.Errorf("disabled Flush = %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("disabled Close = %v", err)
	}
	if r.Path() != "" {
		t.Errorf("disabled Path = %q, want empty", r.Path())
	}
	allocs := testing.AllocsPerRun(1000, func() {
		r.Add("predictor.substep_ms", 1.5)
		c.Add(1.5)
		r.Start("core.step_ms").Stop()
		c.Start().Stop()
	})
	if allocs != 0 {
		t.Errorf("disabled calls allocate %v times per run, want 0", allocs)
	}
}

func TestRoleFromStage(t *testing.T) {
	for _, tc := range []struct{ stage, role string }{
		{"", "engine"}, {"0", "stage0"}, {"12", "stage12"}, {"talker", "talker"},
	} {
		dir := t.TempDir()
		r, err := New(Config{Dir: dir, Role: RoleFromStage(tc.stage)})
		if err != nil {
			t.Fatalf("New(stage %q): %v", tc.stage, err)
		}
		if r.Role() != tc.role {
			t.Errorf("OMNI_STAGE=%q: role %q, want %q", tc.stage, r.Role(), tc.role)
		}
		if want := filepath.Join(dir, tc.role+"_"+itoa(os.Getpid())+".json"); r.Path() != want {
			t.Errorf("path %q, want %q", r.Path(), want)
		}
		r.Close()
	}
	if _, err := New(Config{Dir: t.TempDir(), Role: RoleFromStage("../evil")}); err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("New(stage ../evil) error = %v, want a role error", err)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestTimerUsesInjectedClock(t *testing.T) {
	clk := newFakeClock()
	r, err := New(Config{Dir: t.TempDir(), Role: "stage0", PID: 42, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tm := r.Start("core.step_ms")
	clk.Advance(12500 * time.Microsecond)
	if ms := tm.Stop(); ms != 12.5 {
		t.Errorf("Stop() = %v ms, want 12.5", ms)
	}
	r.Time("core.step_ms", func() { clk.Advance(7500 * time.Microsecond) })
	wrapped := r.Wrap("core.step_ms", func() { clk.Advance(20 * time.Millisecond) })
	wrapped()
	s := r.Summaries()["core.step_ms"]
	if s.Count != 3 || s.SumMS != 40 || s.MaxMS != 20 {
		t.Errorf("core.step_ms = %+v, want count 3, sum 40, max 20", s)
	}
}

func TestDumpLayoutAndWorkedMerge(t *testing.T) {
	// tests/edge/test_step_stats.py: a stage0 process records 1,2,3,4,100
	// under sched.schedule_ms; a second stage0 dump (count 5, sum 5, p95 1)
	// merges to count 10, sum 115, p95 100; the top row's share is 11.5/80.
	dir := t.TempDir()
	clk := newFakeClock()
	r, err := New(Config{Dir: dir, Role: RoleFromStage("0"), PID: 4242, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{1, 2, 3, 4, 100} {
		r.Add("sched.schedule_ms", v)
	}
	clk.Advance(3 * time.Second)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.Path(), "stage0_4242.json") {
		t.Errorf("dump path %q does not end with stage0_4242.json", r.Path())
	}
	raw, err := os.ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	var layout map[string]any
	if err := json.Unmarshal(raw, &layout); err != nil {
		t.Fatalf("dump is not JSON: %v", err)
	}
	for _, k := range []string{"role", "pid", "started_at", "dumped_at", "counters"} {
		if _, ok := layout[k]; !ok {
			t.Errorf("dump lacks key %q", k)
		}
	}
	if got := layout["dumped_at"].(float64) - layout["started_at"].(float64); got != 3 {
		t.Errorf("dumped_at - started_at = %v, want 3 (fake clock)", got)
	}
	summ := layout["counters"].(map[string]any)["sched.schedule_ms"].(map[string]any)
	for k, want := range map[string]float64{"count": 5, "sum_ms": 110, "mean_ms": 22, "p50_ms": 3, "p95_ms": 100, "max_ms": 100} {
		if summ[k] != want {
			t.Errorf("counters.sched.schedule_ms.%s = %v, want %v", k, summ[k], want)
		}
	}
	// A dump as the original system writes it (Python json, indent 1).
	other := `{"role": "stage0", "pid": 999, "started_at": 1.5, "dumped_at": 2.5,
 "counters": {"sched.schedule_ms": {"count": 5, "sum_ms": 5.0, "mean_ms": 1.0,
 "p50_ms": 1.0, "p95_ms": 1.0, "max_ms": 1.0}}}`
	if err := os.WriteFile(filepath.Join(dir, "stage0_999.json"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"role": `), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Roles["stage0"]["sched.schedule_ms"]
	if got.Count != 10 || got.SumMS != 115 || got.P95MS != 100 || got.MeanMS != 11.5 || got.MaxMS != 100 || got.P50MS != 3 {
		t.Errorf("merged = %+v, want count 10, sum 115, mean 11.5, p50 3, p95 100, max 100", got)
	}
	if len(m.Skipped) != 1 || !strings.Contains(m.Skipped[0], "broken.json") {
		t.Errorf("Skipped = %q, want broken.json", m.Skipped)
	}
	rows := Attribution(m.Roles, FrameBudgetMS)
	if len(rows) != 1 || rows[0].Counter != "sched.schedule_ms" || rows[0].ShareOfFrame != 11.5/80 {
		t.Errorf("Attribution = %+v, want top row sched.schedule_ms share %v", rows, 11.5/80)
	}
	table := FormatTable(rows, FrameBudgetMS)
	if !strings.Contains(table, "share of 80 ms") || !strings.Contains(table, "| stage0 | sched.schedule_ms | 10 | 11.50 | 100.00 | 14.4% |") {
		t.Errorf("table:\n%s", table)
	}
}

func TestAttributionOrder(t *testing.T) {
	roles := Roles{
		"stage0": {"core.step_ms": {Count: 2, MeanMS: 40}, "sched.schedule_ms": {Count: 2, MeanMS: 0.1}},
		"stage1": {"core.step_ms": {Count: 1, MeanMS: 8}, "hop.get_ms": {Count: 1, MeanMS: 8}},
	}
	rows := Attribution(roles, 80)
	want := []string{"stage0/core.step_ms", "stage1/core.step_ms", "stage1/hop.get_ms", "stage0/sched.schedule_ms"}
	for i, r := range rows {
		if got := r.Role + "/" + r.Counter; got != want[i] {
			t.Errorf("row %d = %s, want %s", i, got, want[i])
		}
	}
	if rows[0].ShareOfFrame != 0.5 {
		t.Errorf("share of 40 ms = %v, want 0.5", rows[0].ShareOfFrame)
	}
	if z := Attribution(roles, 0); z[0].ShareOfFrame != 0 {
		t.Errorf("budget 0: share %v, want 0", z[0].ShareOfFrame)
	}
}

func TestDumpEvery500Adds(t *testing.T) {
	dir := t.TempDir()
	r, err := New(Config{Dir: dir, Role: "engine", PID: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := r.Counter("predictor.substep_ms")
	for i := 0; i < FlushEvery-1; i++ {
		c.Add(1)
	}
	if err := r.Flush(); err != nil { // a baseline file we can see replaced
		t.Fatal(err)
	}
	c.Add(1) // the 500th add wakes the dumper
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, err := ReadDump(r.Path())
		if err == nil && d.Counters["predictor.substep_ms"].Count == FlushEvery {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dump with count %d after the %dth add (last: %+v, %v)", FlushEvery, FlushEvery, d, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := r.Err(); err != nil {
		t.Errorf("background dump error: %v", err)
	}
}

func TestConcurrentAdds(t *testing.T) {
	dir := t.TempDir()
	r, err := New(Config{Dir: dir, Role: "engine", PID: 8})
	if err != nil {
		t.Fatal(err)
	}
	const workers, per = 8, 3000
	names := []string{"a_ms", "b_ms", "c_ms"}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				name := names[(w+i)%len(names)]
				switch i % 3 {
				case 0:
					r.Add(name, 1)
				case 1:
					r.Counter(name).Add(1)
				default:
					r.Start(name).Stop()
				}
				if i%1000 == 0 {
					r.Summaries()
				}
			}
		}(w)
	}
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := ReadDump(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, n := range names {
		total += d.Counters[n].Count
	}
	if total != workers*per {
		t.Errorf("dumped counts sum to %d, want %d", total, workers*per)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, role := range []string{"a/b", "..", ".hidden", "x y", `a\b`} {
		if _, err := New(Config{Dir: t.TempDir(), Role: role}); err == nil {
			t.Errorf("New(role %q) succeeded, want an error", role)
		}
	}
	if _, err := New(Config{Dir: t.TempDir(), PID: -1}); err == nil {
		t.Error("New(pid -1) succeeded")
	}
}

func TestMergeMissingDir(t *testing.T) {
	if _, err := Merge(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("Merge(missing dir) succeeded, want an error")
	}
}

// TestResetKeepsCountersResolved: Reset empties every series (count, sum,
// max, samples), and a counter resolved before it still records after.
func TestResetKeepsCountersResolved(t *testing.T) {
	r, err := New(Config{Dir: t.TempDir(), Role: "engine"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := r.Counter("core.step_ms")
	c.Add(10)
	c.Add(30)
	r.Reset()
	if s := r.Summaries()["core.step_ms"]; s.Count != 0 || s.SumMS != 0 || s.MaxMS != 0 || s.P50MS != 0 {
		t.Errorf("after Reset: %+v, want an empty summary", s)
	}
	c.Add(4)
	if s := r.Summaries()["core.step_ms"]; s.Count != 1 || s.SumMS != 4 || s.P50MS != 4 {
		t.Errorf("after Reset and Add(4): %+v, want count 1, sum 4, p50 4", s)
	}
	var nilRec *Recorder
	nilRec.Reset() // a disabled recorder: no-op
}
