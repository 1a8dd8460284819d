package testvectors

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/omni-tts/omni/core"
)

// TestFrameSuiteBatched runs every frame case of one model as one batch in
// one engine: each stream must still produce the reference's codes, so
// batching changes nothing.
func TestFrameSuiteBatched(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("suites", "frame", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no frame cases: %v", err)
	}
	sort.Strings(paths)
	env := nativeEnv()
	byModel := map[string][]*Case{}
	precOf := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseCase(p, data)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		dir, prec, err := caseModel(c, env)
		if err != nil {
			t.Fatal(err)
		}
		byModel[dir] = append(byModel[dir], c)
		precOf[dir] = prec
	}
	for dir, cases := range byModel {
		if len(cases) < 2 {
			t.Errorf("model %s has %d frame cases; a batch needs at least 2", dir, len(cases))
		}
		e, cfg, release, err := frameEngine(cases[0], env, dir, precOf[dir], len(cases))
		if err != nil {
			t.Fatal(err)
		}
		var fcs []*frameCase
		for _, c := range cases {
			fc, err := parseFrame(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			fcs = append(fcs, fc)
		}
		type streamCase struct {
			fc *frameCase
			s  *core.Stream
		}
		ss := make([]streamCase, 0, len(fcs))
		for _, fc := range fcs {
			s, err := e.Submit(context.Background(), fc.req)
			if err != nil {
				t.Fatal(err)
			}
			ss = append(ss, streamCase{fc: fc, s: s})
		}
		if err := stepUntilIdle(e); err != nil {
			t.Fatal(err)
		}
		for _, sc := range ss {
			if err := sc.fc.check(sc.s); err != nil {
				t.Errorf("batched: %v", err)
			}
		}
		release()
	}
}
