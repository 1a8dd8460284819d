package testvectors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes name under dir.
func writeFile(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeF32Safetensors writes one F32 tensor as a safetensors file.
func writeF32Safetensors(t *testing.T, path, name string, shape []int, data []float32) {
	t.Helper()
	hdr, _ := json.Marshal(map[string]any{name: map[string]any{
		"dtype": "F32", "shape": shape, "data_offsets": []int{0, 4 * len(data)}}})
	for len(hdr)%8 != 0 {
		hdr = append(hdr, ' ')
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(hdr)))
	b.Write(hdr)
	for _, v := range data {
		binary.Write(&b, binary.LittleEndian, math.Float32bits(v))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A greedy case over V = 4 whose answer is token 2 by construction.
const goodGreedy = `{"kind": "sampler", "name": "good", "vocab": 4,
 "requests": [{"params": {"temperature": 0}, "prompt_token_ids": [], "output_token_ids": []}],
 "steps": [{"logits": [[0.5, 1.0, 3.0, -1.0]], "expect_tokens": [2]}]}`

func TestRunnerReportsBrokenCases(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "good.json", goodGreedy)
	writeFile(t, dir, "wrong_token.json", strings.Replace(strings.Replace(goodGreedy, `"expect_tokens": [2]`, `"expect_tokens": [1]`, 1), `"good"`, `"wrong_token"`, 1))
	writeFile(t, dir, "malformed.json", `{"kind": "sampler", "name": `)
	writeFile(t, dir, "unknown_kind.json", `{"kind": "sampler.v2", "name": "unknown_kind"}`)
	writeFile(t, dir, "missing_field.json", `{"kind": "sampler", "name": "missing_field", "vocab": 4, "steps": []}`)
	writeFile(t, dir, "missing_ref.json", strings.Replace(strings.Replace(goodGreedy, `[[0.5, 1.0, 3.0, -1.0]]`, `{"tensor": "logits0"}`, 1), `"good"`, `"missing_ref"`, 1))
	writeFile(t, dir, "sub/duplicate.json", goodGreedy)
	writeFile(t, dir, "bad_param.json", strings.Replace(strings.Replace(goodGreedy, `"temperature": 0`, `"temprature": 0`, 1), `"good"`, `"bad_param"`, 1))
	// A model directory is not searched: its JSON would fail if it were.
	writeFile(t, dir, "model/config.json", `{"not": "a case"}`)
	writeFile(t, dir, "model/model.safetensors", "")

	rep, err := Run([]string{dir}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{ // name → substrings the failure must contain
		"wrong_token":    {"wrong_token.json", "steps[0].expect_tokens", "got token 2, want 1"},
		"malformed.json": {"malformed.json", "malformed JSON"},
		"unknown_kind":   {"unknown_kind.json", "field kind", "sampler.v2"},
		"missing_field":  {"missing_field.json", "field requests", "required field missing"},
		"missing_ref":    {"missing_ref.json", "steps[0].logits", "missing_ref.safetensors"},
		"good":           {"duplicate.json", "field name", "duplicate name"},
		"bad_param":      {"bad_param.json", "requests[0].params", "temprature"},
	}
	failed := map[string]string{}
	passed := 0
	for _, r := range rep.Results {
		switch r.Status {
		case Fail:
			failed[r.Name] = r.Message
		case Pass:
			passed++
		}
	}
	for name, subs := range want {
		msg, ok := failed[name]
		if !ok {
			t.Errorf("case %s did not fail", name)
			continue
		}
		for _, s := range subs {
			if !strings.Contains(msg, s) {
				t.Errorf("case %s failure %q lacks %q", name, msg, s)
			}
		}
	}
	if passed != 1 || rep.Passed != 1 || rep.Failed != len(want) {
		t.Errorf("passed %d (report %d), failed %d; want 1 and %d", passed, rep.Passed, rep.Failed, len(want))
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "1 passed, 7 failed" {
		t.Errorf("last line %q, want %q", last, "1 passed, 7 failed")
	}
	if !strings.HasPrefix(lines[0], "FAIL ") {
		t.Errorf("first line %q, want a FAIL line", lines[0])
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Passed, Failed int
		Summary        string
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Passed != 1 || back.Failed != 7 || back.Summary != "1 passed, 7 failed" {
		t.Errorf("JSON report = %+v (%v)", back, err)
	}
}

func TestRunnerTensorRefsAndKindFilter(t *testing.T) {
	dir := t.TempDir()
	body := strings.Replace(goodGreedy, `[[0.5, 1.0, 3.0, -1.0]]`, `{"tensor": "logits0"}`, 1)
	writeFile(t, dir, "ref.json", body)
	inf := float32(math.Inf(-1))
	writeF32Safetensors(t, filepath.Join(dir, "ref.safetensors"), "logits0", []int{1, 4}, []float32{0.5, 1, 3, inf})
	writeFile(t, dir, "other.json", `{"kind": "stats", "name": "other"}`)
	rep, err := Run([]string{dir}, Options{Kind: "sampler"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 1 || rep.Failed != 0 || len(rep.Results) != 1 {
		t.Fatalf("report %+v, want the one sampler case passing", rep)
	}
	if _, err := Run([]string{dir}, Options{Kind: "nope"}, nil); err == nil {
		t.Error("Run with an unknown --kind = nil error")
	}
	if _, err := Run([]string{filepath.Join(dir, "absent")}, Options{}, nil); err == nil {
		t.Error("Run on a missing directory = nil error")
	}
}

func TestRunnerSkipsPrecisionNotOffered(t *testing.T) {
	env := &Env{}
	c := &Case{Name: "x"}
	if err := env.CheckPrecision(c, "fp32"); err != nil {
		t.Errorf("fp32 not offered by default: %v", err)
	}
	err := env.CheckPrecision(c, "int4")
	if _, ok := err.(*SkipError); !ok {
		t.Errorf("CheckPrecision(int4) = %v, want a *SkipError", err)
	}
}

func TestResolveInlineShapes(t *testing.T) {
	c := &Case{Path: "x.json"}
	f, err := c.ResolveF32("t", json.RawMessage(`[[1, 2.5, -3], [4, 5, 6]]`))
	if err != nil || len(f.Shape) != 2 || f.Shape[0] != 2 || f.Shape[1] != 3 || f.Data[1] != 2.5 {
		t.Errorf("ResolveF32 = %+v, %v", f, err)
	}
	if _, err := c.ResolveF32("t", json.RawMessage(`[[1, 2], [3]]`)); err == nil || !strings.Contains(err.Error(), "ragged") {
		t.Errorf("ragged array error = %v", err)
	}
	i, err := c.ResolveI64("t", json.RawMessage(`[9007199254740993]`))
	if err != nil || i.Data[0] != 9007199254740993 {
		t.Errorf("ResolveI64 = %+v, %v", i, err)
	}
	if _, err := c.ResolveI64("t", json.RawMessage(`[1.5]`)); err == nil {
		t.Error("ResolveI64([1.5]) = nil error")
	}
}

// TestNotSupportedIsAFailure: a kind whose engine part is not built yet
// fails (never passes, never skips) with "not supported yet: KIND".
func TestNotSupportedIsAFailure(t *testing.T) {
	err := runHandler(func(c *Case, _ *Env) error { return notSupported(c.Kind) }, &Case{Kind: "frame"}, nil)
	if !errors.Is(err, ErrNotSupported) || err.Error() != "not supported yet: frame" {
		t.Fatalf("placeholder handler error = %v", err)
	}
	var skip *SkipError
	if errors.As(err, &skip) {
		t.Fatal("not supported counts as a skip")
	}
}
