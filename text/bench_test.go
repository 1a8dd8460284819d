package text

import "testing"

// paragraph is about 1 KB of mixed-script text: English, German, Russian,
// Chinese, Japanese, Korean, numbers, punctuation and an emoji.
const paragraph = "Hello! This paragraph mixes scripts to measure the tokenizer: it's 2024, the price is $1,299.99 and the temperature is -3.5°C. " +
	"Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich. " +
	"Съешь же ещё этих мягких французских булок, да выпей чаю. " +
	"我能吞下玻璃而不伤身体。今天天气很好，我们去公园散步吧！" +
	"私はガラスを食べられます。それは私を傷つけません。" +
	"나는 유리를 먹을 수 있어요. 그래도 아프지 않아요. " +
	"Visit https://example.com/path?q=1 for more 👍🏽 — thanks!\n" +
	"The quick brown fox jumps over the lazy dog; THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG. " +
	"Voix ambiguë d'un cœur qui, au zéphyr, préfère les jattes de kiwis. ¿Qué pasó? ¡Nada! " +
	"À noite, vovô Kowalsky vê o ímã cair no pé do pingüim. Ma la volpe, col suo balzo, ha raggiunto il quieto Fido. " +
	"We'll meet at 10:30 on 12/04, won't we? I'm sure you've heard: 3.14159 ≈ π.\n"

func BenchmarkEncodeParagraph(b *testing.B) {
	_, tk := tokenizers(b)
	b.SetBytes(int64(len(paragraph)))
	for b.Loop() {
		if _, err := tk.Encode(paragraph); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPromptIDsParagraph(b *testing.B) {
	_, tk := tokenizers(b)
	b.SetBytes(int64(len(paragraph)))
	for b.Loop() {
		if _, _, err := tk.PromptIDs(paragraph); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuiltin(b *testing.B) {
	for b.Loop() {
		if _, err := Builtin(); err != nil {
			b.Fatal(err)
		}
	}
}
