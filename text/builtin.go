package text

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// builtinBlob is the Qwen3-TTS text tokenizer (the Qwen2 vocabulary and
// merges Qwen2, Qwen2.5, Qwen3 and Qwen3-TTS share, and Qwen3-TTS's 33
// added tokens) as gzip: a header "omni-bpe 1 V M A", V tokens in id order
// (byte-level spelling), M merges "left right" by rank, A added tokens
// "id special content". testvectors/gen/text/gen.mjs writes it.
//
//go:embed qwen3tts/bpe.txt.gz
var builtinBlob []byte

// Builtin returns the Qwen3-TTS tokenizer built into the binary, for
// models that bring no tokenizer files (the synthetic models). Each call
// parses the blob afresh (tens of milliseconds); keep the result.
func Builtin() (*Tokenizer, error) {
	zr, err := gzip.NewReader(bytes.NewReader(builtinBlob))
	if err != nil {
		return nil, fmt.Errorf("text: built-in tokenizer: %w", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	next := func() string {
		if !sc.Scan() {
			return ""
		}
		return sc.Text()
	}
	var nv, nm, na int
	if _, err := fmt.Sscanf(next(), "omni-bpe 1 %d %d %d", &nv, &nm, &na); err != nil {
		return nil, fmt.Errorf("text: built-in tokenizer: header: %w", err)
	}
	b, _ := newBuilder("built-in Qwen3-TTS tokenizer")
	b.file = "vocab"
	vocab := make(map[string]int64, nv)
	for id := 0; id < nv; id++ {
		vocab[next()] = int64(id)
	}
	if err := b.addVocab(vocab); err != nil {
		return nil, err
	}
	b.file = "merges"
	b.growMerges(nm)
	for r := 0; r < nm; r++ {
		l, rt, ok := strings.Cut(next(), " ")
		if !ok {
			return nil, b.errf("merge %d malformed", r)
		}
		if err := b.addMerge(l, rt, int32(r), "merge "+strconv.Itoa(r)); err != nil {
			return nil, err
		}
	}
	b.file = "added"
	for k := 0; k < na; k++ {
		f := strings.SplitN(next(), " ", 3)
		if len(f) != 3 {
			return nil, b.errf("added token %d malformed", k)
		}
		id, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, b.errf("added token %d: %v", k, err)
		}
		if err := b.addAdded(int64(id), addedJSON{Content: f[2], Special: f[1] == "1"}); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("text: built-in tokenizer: %w", err)
	}
	return b.finish()
}
