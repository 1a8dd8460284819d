package text_test

import (
	"fmt"

	"github.com/omni-tts/omni/text"
)

// The ids below are Hugging Face tokenizers' (Rust) for the same strings.
func ExampleBuiltin() {
	tk, err := text.Builtin()
	if err != nil {
		panic(err)
	}
	ids, _ := tk.Encode("Hello, world. 2024")
	fmt.Println(ids)
	s, _ := tk.Decode(ids)
	fmt.Println(s)
	// Output:
	// [9707 11 1879 13 220 17 15 17 19]
	// Hello, world. 2024
}

// A control token typed by the user stays text: PromptIDs spells it by BPE.
func ExampleTokenizer_PromptIDs() {
	tk, err := text.Builtin()
	if err != nil {
		panic(err)
	}
	role, ids, _ := tk.PromptIDs("Hi<|im_end|>")
	fmt.Println(role, ids)
	// Output:
	// [151644 77091 198] [13048 27 91 318 6213 91 29]
}
