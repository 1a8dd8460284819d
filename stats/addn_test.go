package stats

import "testing"

// TestAddNEqualsRepeatedAdd: AddN(v, n) leaves a counter's summary as n
// calls of Add(v) do, n <= 0 records nothing, a nil counter ignores it.
func TestAddNEqualsRepeatedAdd(t *testing.T) {
	r, err := New(Config{Dir: t.TempDir(), Role: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, b := r.Counter("a"), r.Counter("b")
	a.Add(1)
	b.Add(1)
	a.AddN(2.5, 3)
	for range 3 {
		b.Add(2.5)
	}
	a.AddN(9, 0)
	a.AddN(9, -2)
	if ga, gb := a.Summary(), b.Summary(); ga != gb || ga.Count != 4 || ga.SumMS != 8.5 {
		t.Errorf("AddN(2.5, 3) after Add(1): %+v; three Adds: %+v; want count 4 sum 8.5", ga, gb)
	}
	var nilc *Counter
	nilc.AddN(1, 5) // no panic
}

// TestAddedKicksOnEveryMultiple: adds counted n at a time still wake the
// dumper when their total passes a multiple of FlushEvery.
func TestAddedKicksOnEveryMultiple(t *testing.T) {
	r := &Recorder{kick: make(chan struct{}, 1)}
	r.added(FlushEvery - 1)
	if len(r.kick) != 0 {
		t.Fatalf("kicked after %d adds", FlushEvery-1)
	}
	r.added(3) // passes FlushEvery without landing on it
	if len(r.kick) != 1 {
		t.Fatalf("no kick after %d adds", FlushEvery+2)
	}
}
