package stats_test

import (
	"fmt"
	"os"

	"github.com/omni-tts/omni/stats"
)

func Example() {
	dir, _ := os.MkdirTemp("", "stats")
	defer os.RemoveAll(dir)

	r, err := stats.Open(dir, "stage0")
	if err != nil {
		panic(err)
	}
	step := r.Counter("core.step_ms") // resolve once, outside the loop
	for _, ms := range []float64{90, 100, 110} {
		step.Add(ms)
	}
	r.Close() // writes <dir>/stage0_<pid>.json

	m, _ := stats.Merge(dir)
	fmt.Print(stats.FormatTable(stats.Attribution(m.Roles, stats.FrameBudgetMS), stats.FrameBudgetMS))
	// Output:
	// | role | counter | n | mean ms | p95 ms | share of 80 ms |
	// |---|---|---|---|---|---|
	// | stage0 | core.step_ms | 3 | 100.00 | 110.00 | 125.0% |
}

func ExampleRecorder_Start() {
	var r *stats.Recorder // disabled: every call is a no-op
	t := r.Start("sched.schedule_ms")
	// ... the block being timed ...
	fmt.Println(t.Stop())
	// Output: 0
}
