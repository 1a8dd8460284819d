// Package text is omni's text front end: the Qwen2 byte-level BPE tokenizer
// exactly as Hugging Face's tokenizers runs it for Qwen3-TTS (NFC, the
// Qwen2 pre-tokenizer pattern, the byte-level alphabet, merges by rank,
// added tokens matched before BPE), decoding back to text, and the token
// ids of the Qwen3-TTS chat-template wrapping (PromptIDs, InstructIDs).
//
// The package is portable (it builds for wasip1 and with -tags purego) and
// imports the standard library and golang.org/x/text only. It must not
// import core: core takes its ids through the core.TextPrompter interface,
// which *Tokenizer satisfies.
//
// A tokenizer comes from a checkpoint directory (Load: vocab.json +
// merges.txt + tokenizer_config.json, or tokenizer.json) or, when a
// checkpoint brings none, from the Qwen3-TTS vocabulary built into the
// binary (Builtin).
package text
