package hub

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
)

// Checkpoint file names a Qwen3-TTS pull fetches when the repo has them.
const (
	configFile  = "config.json"
	weightsFile = "model.safetensors"
	indexFile   = "model.safetensors.index.json"
	codecDir    = "speech_tokenizer/"
)

// optionalFiles are fetched when the repo lists them: the generation config,
// the text tokenizer, and the codec's (speech_tokenizer/) config and weights.
var optionalFiles = []string{
	"generation_config.json",
	"vocab.json", "merges.txt", "tokenizer_config.json", "tokenizer.json",
	codecDir + "config.json", codecDir + "model.safetensors",
	codecDir + "preprocessor_config.json",
}

// selectFiles picks, from the paths a repo lists, what a Qwen3-TTS
// checkpoint needs before the weight index is known: config.json (required),
// the weights (model.safetensors, or the index whose shards come later), and
// every optional file present. It names what is missing.
func selectFiles(repo string, listed []string) (want []string, sharded bool, err error) {
	has := func(p string) bool { return slices.Contains(listed, p) }
	if !has(configFile) {
		return nil, false, fmt.Errorf("hub: repo %s lists no %s: not a Hugging Face checkpoint", repo, configFile)
	}
	want = append(want, configFile)
	switch {
	case has(weightsFile):
		want = append(want, weightsFile)
	case has(indexFile):
		want, sharded = append(want, indexFile), true
	default:
		return nil, false, fmt.Errorf("hub: repo %s lists neither %s nor %s", repo, weightsFile, indexFile)
	}
	for _, p := range optionalFiles {
		if has(p) {
			want = append(want, p)
		}
	}
	return want, sharded, nil
}

// shardsOf returns the distinct shard files a model.safetensors.index.json
// maps tensors to, in first-seen order, each checked to be a plain file name
// the repo lists.
func shardsOf(repo string, index []byte, listed []string) ([]string, error) {
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(index, &idx); err != nil {
		return nil, fmt.Errorf("hub: repo %s: %s: %w", repo, indexFile, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, fmt.Errorf("hub: repo %s: %s has an empty weight_map", repo, indexFile)
	}
	var shards []string
	for _, f := range idx.WeightMap {
		if !plainName(f) {
			return nil, fmt.Errorf("hub: repo %s: %s maps a tensor to %q, not a file name", repo, indexFile, f)
		}
		if !slices.Contains(shards, f) {
			shards = append(shards, f)
		}
	}
	slices.Sort(shards)
	for _, f := range shards {
		if !slices.Contains(listed, f) {
			return nil, fmt.Errorf("hub: repo %s: %s names shard %s, which the repo does not list", repo, indexFile, f)
		}
	}
	return shards, nil
}

// plainName reports whether f names a file in the snapshot directory itself
// on every OS: not empty, no '/' or '\' (a separator on Windows), not
// hidden (so not "." or ".."), no control character (NUL included).
func plainName(f string) bool {
	return f != "" && path.Base(f) == f && !strings.HasPrefix(f, ".") && !hasBackslashOrControl(f)
}

// hasBackslashOrControl reports whether s holds a '\' (a separator on
// Windows) or a control character (NUL included): neither belongs in a
// file name or a revision the cache turns into a path.
func hasBackslashOrControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r == '\\' || unicode.IsControl(r) })
}
