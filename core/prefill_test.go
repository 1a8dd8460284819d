package core

import (
	"reflect"
	"testing"
)

// singlePrefill hides the fake's PrefillBatch: the engine must then prefill
// one request at a time.
type singlePrefill struct{ Model }

// TestAdmitStepPrefillsTogether checks that the requests admitted in one
// step are prefilled by one PrefillBatch call (their prompt rows in
// admission order), and that the streams' codes equal those of an engine
// prefilling one request at a time, and of one whose batched call fails
// (each stream is then retried alone).
func TestAdmitStepPrefillsTogether(t *testing.T) {
	reqs := []Request{
		seeded("a", []int32{1, 2, 3}, 21, 12),
		seeded("b", []int32{4}, 22, 9),
		seeded("c", []int32{5, 6, 7, 8, 9}, 23, 15),
	}
	reqs[0].Layout = NonStreaming // prompts of different lengths
	reqs[2].Layout = NonStreaming
	emb := seeded("d", nil, 24, 7)
	emb.Embedded = &EmbeddedPrompt{Rows: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}
	reqs = append(reqs, emb)
	run := func(name string, m *fakeModel, model Model) ([][][Codebooks]int32, []int) {
		e, err := New(Config{Model: model, IDs: tinyIDs(), Inline: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ss := submitAll(t, e, reqs)
		drain(t, e)
		var out [][][Codebooks]int32
		var rows []int
		for _, s := range ss {
			if end := s.End(); end.Reason != EndLength || end.Frames != s.Cap() {
				t.Fatalf("%s: stream %s ended %v (%v) after %d frames, want length after %d", name, s.ID(), end.Reason, end.Err, end.Frames, s.Cap())
			}
			out = append(out, s.Codes())
			rows = append(rows, s.rows)
		}
		if n := m.liveSeqs(); n != 0 {
			t.Errorf("%s: %d sequences still allocated", name, n)
		}
		return out, rows
	}
	bm := newFake(4)
	batched, rows := run("batched", bm, bm)
	if rows[0] == rows[1] || rows[1] == rows[2] {
		t.Fatalf("prompt rows %v: want different lengths", rows)
	}
	if len(bm.batchPrefills) != 1 || !reflect.DeepEqual(bm.batchPrefills[0], rows) {
		t.Errorf("batched prefill calls %v, want one of rows %v", bm.batchPrefills, rows)
	}
	sm := newFake(4)
	single, _ := run("single", sm, singlePrefill{sm})
	if len(sm.batchPrefills) != 0 {
		t.Errorf("single: %d batched prefill calls through a model without PrefillBatch", len(sm.batchPrefills))
	}
	fm := newFake(4)
	fm.failBatch = true
	fallback, _ := run("fallback", fm, fm)
	for i := range reqs {
		if !reflect.DeepEqual(batched[i], single[i]) {
			t.Errorf("stream %s: codes after a batched prefill differ from one-at-a-time prefills", reqs[i].ID)
		}
		if !reflect.DeepEqual(fallback[i], single[i]) {
			t.Errorf("stream %s: codes after a failed batched prefill (retried alone) differ", reqs[i].ID)
		}
	}
}
