package hub

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// plainFileName reports whether f names a file in the snapshot directory
// itself on every OS omni builds for: no separator of any of them, not "."
// or "..", no hidden name, no control character.
func plainFileName(f string) bool {
	return f != "" && !strings.ContainsAny(f, `/\`) && !strings.HasPrefix(f, ".") &&
		!strings.ContainsFunc(f, unicode.IsControl) && filepath.IsLocal(f)
}

// FuzzShardsOf checks model.safetensors.index.json handling (the hub's
// file, untrusted): an index is refused with an error naming the repo and
// the index file, or gives exactly the distinct values of its weight_map
// (decoded here with encoding/json alone), sorted, each a plain file name
// the repo lists.
func FuzzShardsOf(f *testing.F) {
	listing := "config.json\nmodel.safetensors.index.json\nmodel-00001-of-00002.safetensors\nmodel-00002-of-00002.safetensors"
	for _, s := range []string{
		`{"metadata": {}, "weight_map": {"talker.model.norm.weight": "model-00001-of-00002.safetensors", "talker.codec_head.weight": "model-00002-of-00002.safetensors"}}`,
		`{"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00001-of-00002.safetensors"}}`,
		`{"weight_map": {}}`, `{"weight_map": {"a": "../model.safetensors"}}`, `{"weight_map": {"a": "sub/x.safetensors"}}`,
		`{"weight_map": {"a": ".hidden"}}`, `{"weight_map": {"a": "missing.safetensors"}}`, `{"weight_map": {"a": 7}}`, `null`, `[`,
	} {
		f.Add([]byte(s), listing)
	}
	f.Add([]byte(`{"weight_map": {"a": "..\\..\\x"}}`), listing+"\n..\\..\\x")
	f.Add([]byte(`{"weight_map": {"a": "a\\..\\..\\x"}}`), listing+"\na\\..\\..\\x")
	f.Add([]byte(`{"weight_map": {"a": "x\u0000.safetensors"}}`), listing+"\nx\x00.safetensors")
	const repo = "Qwen/Sharded"
	f.Fuzz(func(t *testing.T, index []byte, listed string) {
		names := strings.Split(listed, "\n")
		shards, err := shardsOf(repo, index, names)
		if err != nil {
			if want := "hub: repo " + repo + ": " + indexFile; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
			return
		}
		var idx struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if err := json.Unmarshal(index, &idx); err != nil {
			t.Fatalf("index %q accepted, but encoding/json refuses it: %v", index, err)
		}
		var want []string
		for _, v := range idx.WeightMap {
			want = append(want, v)
		}
		slices.Sort(want)
		want = slices.Compact(want)
		if len(shards) == 0 || !slices.Equal(shards, want) {
			t.Fatalf("shards %q, want the weight_map's values %q", shards, want)
		}
		for _, s := range shards {
			if !plainFileName(s) || !slices.Contains(names, s) {
				t.Fatalf("accepted shard %q (listed %v): want a plain file name the repo lists", s, slices.Contains(names, s))
			}
		}
	})
}

// FuzzParseRepo checks ORG/NAME[@REVISION] specs (user input that names
// cache directories): a spec is refused with an error quoting it, or gives
// a repo that prints back to itself, whose folder is one plain name and
// whose refs/<revision> file lies strictly inside refs/.
func FuzzParseRepo(f *testing.F) {
	for _, s := range []string{
		"Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice", "Qwen/X@v1.0", "Qwen/X@refs/pr/1", "Qwen/X@", "Qwen", "a/b/c", "../x",
		"Qwen/a--b", "Qwen/X@../../etc", "Qwen/X@0123456789abcdef0123456789abcdef01234567", "Qwen/X@main",
		"Qwen/X@.", "Qwen/X@a//b", "Qwen/X@a/", "Qwen/X@a\\..\\..\\b", "Qwen/X@a b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		r, err := ParseRepo(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hub: model ") || !strings.Contains(err.Error(), fmt.Sprintf("%q", spec)) {
				t.Fatalf("ParseRepo(%q): error %q does not quote the spec", spec, err)
			}
			return
		}
		if !repoIDPattern.MatchString(r.ID) || r.Revision == "" {
			t.Fatalf("ParseRepo(%q) = %+v", spec, r)
		}
		if back, err := ParseRepo(r.String()); err != nil || back != r {
			t.Fatalf("ParseRepo(%q) = %+v prints as %q, which parses to %+v, %v", spec, r, r.String(), back, err)
		}
		if !plainFileName(r.Folder()) {
			t.Fatalf("ParseRepo(%q): folder %q is not one plain name", spec, r.Folder())
		}
		rev := filepath.FromSlash(r.Revision)
		if rev == "." || !filepath.IsLocal(rev) || filepath.Clean(rev) != rev || strings.ContainsAny(r.Revision, `\`) ||
			strings.ContainsFunc(r.Revision, unicode.IsControl) {
			t.Fatalf("ParseRepo(%q): revision %q does not name a file strictly inside refs/", spec, r.Revision)
		}
	})
}
