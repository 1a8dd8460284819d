// Generates text/testdata/sentences.json: sentence boundaries of a
// multilingual corpus as ICU draws them (JavaScript's Intl.Segmenter with
// granularity "sentence", i.e. Unicode UAX #29 as ICU implements it),
// independently of omni's Go code. No dependencies: node's built-in ICU.
//
// Two kinds of case:
//   - "icu": omni's text.Sentences must draw exactly ICU's boundaries;
//   - "differs": where omni deliberately departs from ICU (abbreviations,
//     initials, single line breaks in hard-wrapped prose); the expected
//     sentences are worked by hand below and ICU's are recorded beside them,
//     so the test shows both that ICU splits there and that omni does not.
//
// Run: node gen.mjs   (from testvectors/gen/segment; node >= 16 with full ICU)
import fs from "node:fs";
import path from "node:path";

const icuCases = [
  ["en_basic", "The quick brown fox jumps over the lazy dog. It was not amused! Was it? Yes."],
  ["en_quotes", "He said, \"Stop.\" Then he left. 'Really?' she asked. (It was late.) We went home."],
  ["en_decimal", "The price rose 3.5% to $12.75 in 2024. Pi is about 3.14159. Version 1.2.3 is out."],
  ["en_lower_after_stop", "It costs about 5 USD etc. and more. He met A. and b. later. Go to example.com today."],
  ["en_multi_terms", "What?! No way... It can't be. Wait!!! Are you sure?? Yes."],
  ["en_ellipsis_char", "Well\u2026 I think so. Maybe."],
  ["en_scontinue", "Hello!, he said. Stop!; then go. Go! - said he."],
  ["en_upper_aterm_upper", "The U.S.A. Army is big. I.B.M. Corp. is old."],
  ["en_numbers_list", "Step 1. Mix it. Step 2. Bake it. Done."],
  ["en_paragraphs", "First paragraph ends here.\n\nSecond one starts. And ends.\n\n\nThird."],
  ["en_no_final_stop", "One sentence. Another without a stop"],
  ["de", "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich. Das Wetter ist schön! Kommst du mit? Um 14.30 Uhr geht es los."],
  ["fr", "Voix ambiguë d'un cœur qui, au zéphyr, préfère les jattes de kiwis. « Vraiment ? » dit-il. Oui !"],
  ["es", "¿Qué pasó? ¡El pingüino hizo kilómetros! Llovía mucho. Costó 3,50 euros."],
  ["it", "Ma la volpe, col suo balzo, ha raggiunto il quieto Fido. Perché è così? Non lo so."],
  ["pt", "À noite, vovô vê o ímã cair. Que bom! Você vem? Sim."],
  ["ru", "Съешь же ещё этих мягких французских булок, да выпей чаю. Как дела? Отлично! Цена 2.5 рубля."],
  ["zh", "我能吞下玻璃而不伤身体。今天天气很好，我们去公园散步吧！你去吗？好的。"],
  ["zh_quotes", "他说：“我明天来。”然后走了。她问：“真的吗？”"],
  ["zh_decimal", "气温是-3.5℃。价格为¥1,299.00元。"],
  ["ja", "私はガラスを食べられます。それは私を傷つけません！本当ですか？「はい。」と彼は言った。"],
  ["ko", "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요! 정말요? 네."],
  ["mixed_zh_en", "Hello world. 你好世界。This is mixed! 这是混合的？Yes."],
  ["mixed_ja_en", "Tokyo is big. 東京は大きいです。Right?"],
  ["fullwidth", "ＡＢＣ．ＤＥＦ！ｇｈｉ？終わり｡"],
  ["spaces_cjk_terms", "第一句。 第二句！  第三句？"],
  ["closers_after_cjk", "（这是括号。）下一句。『引用！』结束。"],
  ["only_terms", "?!... . !"],
  ["url_email", "Mail me at a.b@example.org. Thanks. See https://x.y/z.html now."],
  ["tabs", "One.\tTwo!\u00a0Three?\u3000Four."],
];

// Where omni departs from ICU on purpose; "omni" is worked by hand from
// the rules in text/sentence.go's doc comment.
const differs = [
  ["abbrev_titles", "Dr. Smith met Mr. Jones. They talked.", ["Dr. Smith met Mr. Jones. ", "They talked."]],
  ["abbrev_initials", "J. R. R. Tolkien wrote it. So did I. The end.", ["J. R. R. Tolkien wrote it. ", "So did I. ", "The end."]],
  ["abbrev_de", "Wir brauchen z.B. Mehl. Prof. Müller kommt.", ["Wir brauchen z.B. Mehl. ", "Prof. Müller kommt."]],
  ["abbrev_fr", "M. Dupont est là. Mme. Curie aussi.", ["M. Dupont est là. ", "Mme. Curie aussi."]],
  ["abbrev_es", "La Sra. García llegó. El Dr. Pérez no.", ["La Sra. García llegó. ", "El Dr. Pérez no."]],
  ["abbrev_ru", "Он родился в 1990 г. В Москве.", ["Он родился в 1990 г. В Москве."]],
  ["hard_wrap", "This line is wrapped\nin the middle of a sentence. And this\none too.", ["This line is wrapped\nin the middle of a sentence. ", "And this\none too."]],
  ["hard_wrap_cjk_blank", "第一段\n还在继续。\n\n第二段。", ["第一段\n还在继续。\n", "\n", "第二段。"]],
];

// Seeded random texts over the classes the rules look at: words in lower,
// capitalised and CJK form, numbers, terminators, clause marks, closers,
// spaces and blank lines (no single line break, no one-letter word and no
// listed abbreviation: those are where omni departs on purpose).
const tokens = [
  "the", "cat", "über", "ёж", "été", "word", "The", "Cat", "Über", "Ёж", "École", "USA", "你好", "世界", "ガラス", "한국어", "ありがとう",
  "12", "3.5", "1,000", "42",
  ".", ".", ".", "!", "?", "?!", "...", "。", "！", "？", "…",
  ",", ";", ":", "、", "，", " - ", " — ",
  "\"", "'", "(", ")", "「", "」", "«", "»", "“", "”",
  " ", " ", " ", " ", " ", " ", "  ", "\n\n", "\u3000",
];
let state = 20251206;
const rand = (n) => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return Math.floor((state / 2147483648) * n);
};
const randomCases = [];
for (let i = 0; i < 150; i++) {
  let t = "";
  const n = 4 + rand(24);
  for (let j = 0; j < n; j++) t += tokens[rand(tokens.length)];
  randomCases.push([`random_${i}`, t]);
}

const seg = new Intl.Segmenter("und", { granularity: "sentence" });
const split = (t) => [...seg.segment(t)].map((s) => s.segment);
const out = {
  generator: "testvectors/gen/segment/gen.mjs",
  reference: `Intl.Segmenter sentence, node ${process.version}, ICU ${process.versions.icu}, Unicode ${process.versions.unicode}`,
  cases: [],
};
for (const [name, text] of [...icuCases, ...randomCases]) out.cases.push({ name, kind: "icu", text, icu: split(text) });
for (const [name, text, omni] of differs) {
  const icu = split(text);
  if (JSON.stringify(icu) === JSON.stringify(omni)) throw new Error(`${name}: ICU agrees with omni, not a difference`);
  if (omni.join("") !== text) throw new Error(`${name}: omni's sentences do not cover the text`);
  out.cases.push({ name, kind: "differs", text, icu, omni });
}
const dst = path.resolve(import.meta.dirname, "../../../text/testdata/sentences.json");
fs.writeFileSync(dst, JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${out.cases.length} cases to ${dst}`);
