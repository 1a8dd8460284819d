package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
)

// The expected ids are Hugging Face tokenizers' (Rust) for the same text.
func TestTokenizeCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"tokenize", "Hello, world. 2024"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := strings.TrimSpace(out.String()); got != "9707,11,1879,13,220,17,15,17,19" {
		t.Fatalf("tokenize printed %q", got)
	}
	out.Reset()
	if code := run([]string{"tokenize", "--decode", "9707,11,1879,13"}, &out, &errb); code != 0 || strings.TrimSpace(out.String()) != "Hello, world." {
		t.Fatalf("tokenize --decode: exit %d, %q %s", code, out.String(), errb.String())
	}
}

func TestTextRequestOnSynth(t *testing.T) {
	cfg, err := predictor.SynthConfig("1.7b")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := loadTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	ids := core.IDsFromConfig(cfg)
	r, err := ids.TextRequest(tk, core.TextInput{Text: "Hello, world.", Language: "English", Speaker: "Vivian", Instruct: "Cheerful."})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.TextIDs, []int32{9707, 11, 1879, 13}) || r.Layout != core.NonStreaming || len(r.InstructIDs) == 0 {
		t.Fatalf("request text %v layout %v instruct %v", r.TextIDs, r.Layout, r.InstructIDs)
	}
	cfg6, _ := predictor.SynthConfig("0.6b")
	ids6 := core.IDsFromConfig(cfg6)
	if _, err := ids6.TextRequest(tk, core.TextInput{Text: "Hi", Instruct: "Cheerful."}); err == nil || !strings.Contains(err.Error(), "field instruct") {
		t.Fatalf("instruct on 0.6B: %v", err)
	}
}
