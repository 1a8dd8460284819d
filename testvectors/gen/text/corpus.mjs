// The text corpus: hand-written cases per class, then seeded random strings
// drawn over the same classes. Every entry is [name, text].

export const handwritten = [
  // languages
  ["en_sentence", "The quick brown fox jumps over the lazy dog."],
  ["en_paragraph", "Hello, world! This is omni, a Go engine for Qwen3-TTS on CPUs. It speaks what you type."],
  ["de_sentence", "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich."],
  ["de_compound", "Donaudampfschifffahrtsgesellschaftskapitän und Straßenbahnhaltestelle"],
  ["fr_sentence", "Voix ambiguë d'un cœur qui, au zéphyr, préfère les jattes de kiwis."],
  ["fr_elision", "L'été dernier, j'ai vu qu'il n'était pas là."],
  ["es_sentence", "¿Qué pasó? ¡El pingüino Wenceslao hizo kilómetros bajo exhaustiva lluvia y frío, añoraba a su querido cachorro!"],
  ["it_sentence", "Ma la volpe, col suo balzo, ha raggiunto il quieto Fido. Perché è così?"],
  ["pt_sentence", "À noite, vovô Kowalsky vê o ímã cair no pé do pingüim queixoso e vovó põe açúcar no chá de tâmaras do jabuti feliz."],
  ["ru_sentence", "Съешь же ещё этих мягких французских булок, да выпей чаю."],
  ["ru_mixed_case", "ПРИВЕТ, Мир! Как Дела? ёЁ"],
  ["zh_sentence", "我能吞下玻璃而不伤身体。今天天气很好，我们去公园散步吧！"],
  ["zh_numbers", "2024年12月4日，气温是-3.5℃，价格为¥1,299.00元。"],
  ["ja_sentence", "いろはにほへと ちりぬるを。私はガラスを食べられます。それは私を傷つけません。"],
  ["ja_mixed", "東京タワーは333メートルです。カタカナとひらがな、漢字が混ざっています。"],
  ["ko_sentence", "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요. 안녕하세요!"],
  // numbers
  ["numbers_year", "2024"],
  ["numbers_space_digit", " 5"],
  ["numbers_long", "1234567890 0987654321"],
  ["numbers_decimal", "3.14159 and 2,718.28 and -0.5 and 1e-6"],
  ["numbers_phone", "+1 (555) 010-9999 ext. 42"],
  ["numbers_percent_currency", "50% off: $19.99, €5,00, £7 — 1/2 or ½ or ² ³ ⅔"],
  ["numbers_ordinals", "1st 2nd 3rd 4th 21st 100th"],
  ["numbers_fullwidth_digits", "１２３４５"],
  ["numbers_arabic_indic", "٠١٢٣٤٥٦٧٨٩ and ०१२३"],
  // contractions
  ["contractions_lower", "it's don't we're you've I'm we'll he'd"],
  ["contractions_upper", "IT'S DON'T WE'RE YOU'VE I'M WE'LL HE'D"],
  ["contractions_mixed", "It'S dOn'T wE'rE yOu'Ve i'M We'Ll hE'd 'sun 'Tis"],
  ["contractions_curly", "it’s don’t we’re"],
  ["contractions_alone", "'s 'S 're 'RE 'x ''"],
  // whitespace
  ["ws_runs", "a  b   c    d     e"],
  ["ws_tabs", "col1\tcol2\t\tcol3\t"],
  ["ws_crlf", "line one\r\nline two\r\n\r\nline four"],
  ["ws_cr_only", "a\rb\r\rc"],
  ["ws_leading", "   leading spaces"],
  ["ws_trailing", "trailing spaces   "],
  ["ws_both", "  both  "],
  ["ws_only", "     "],
  ["ws_newline_end", "ends with a newline\n"],
  ["ws_newlines_end", "ends with newlines\n\n\n"],
  ["ws_newline_start", "\nstarts with a newline"],
  ["ws_space_newline_mix", "a \n b \n\n  c  \n"],
  ["ws_unicode_spaces", "a\u00a0b\u2003c\u3000d\u2009e\u202ff"],
  ["ws_vertical", "a\u000bb\u000cc"],
  ["ws_nel", "a\u0085b\u0085\u0085c"],
  ["ws_line_sep", "a\u2028b\u2029c"],
  ["ws_bom", "\ufeffa\ufeffb"],
  ["ws_single_char", " "],
  ["ws_newline_only", "\n"],
  // emoji
  ["emoji_simple", "I love 🍕 and 🎉!"],
  ["emoji_zwj_family", "👨‍👩‍👧‍👦 family"],
  ["emoji_zwj_professions", "👩‍💻👨‍🚀🏳️‍🌈"],
  ["emoji_skin_tone", "👍🏽 👋🏿"],
  ["emoji_flags", "🇩🇪🇫🇷🇯🇵"],
  ["emoji_keycap", "1️⃣ #️⃣"],
  // normalisation
  ["nfd_e_acute", "Cafe\u0301 de\u0301ja\u0300 vu"],
  ["nfd_hangul", "\u1112\u1161\u11ab\u1100\u1173\u11af"],
  ["nfd_angstrom", "\u212b and A\u030a and \u00c5"],
  ["nfd_ohm_kelvin", "\u2126 \u212a"],
  ["nfd_combining_only", "\u0301\u0301x"],
  ["nfd_german", "Gro\u0308\u00dfe U\u0308bung"],
  ["fullwidth_latin", "ＡＢＣ ａｂｃ Ｈｅｌｌｏ！"],
  ["compat_ligature", "ﬁne ﬂow ﬀ"],
  // URLs, code, long words
  ["url_https", "Visit https://example.com/path?query=1&b=two#frag now."],
  ["url_email", "mail me at first.last+tag@example.co.uk, thanks"],
  ["code_snippet", "func main() { fmt.Println(\"hi\") } // ok"],
  ["long_word", "Pneumonoultramicroscopicsilicovolcanoconiosis"],
  ["long_repeat", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
  ["long_punct", "!!!!!!!!!!??????......------"],
  ["punct_newlines", "Hi!!\n\n...\r\n?"],
  // control characters
  ["control_nul", "a\u0000b"],
  ["control_bell_esc", "x\u0007y\u001bz"],
  ["control_del", "a\u007fb\u0080c"],
  // literal added tokens (the text kind matches them as HF does)
  ["added_im_end", "Hello<|im_end|>world"],
  ["added_im_start_assistant", "<|im_start|>assistant\nHi<|im_end|>"],
  ["added_tts", "<tts_pad><tts_text_bos>x<tts_text_eod>"],
  ["added_endoftext_space", " <|endoftext|> "],
  ["added_partial", "<|im_end| <im_end|> <|im_en"],
  ["added_think", "<think>hmm</think>"],
  // misc
  ["mixed_script", "Hello 世界! Привет мир. こんにちは 안녕 مرحبا שלום नमस्ते"],
  ["arabic", "مرحبا بالعالم، كيف حالك؟"],
  ["hindi", "नमस्ते दुनिया"],
  ["thai", "สวัสดีชาวโลก"],
  ["greek", "Γειά σου Κόσμε"],
  ["single_letter", "a"],
  ["single_cjk", "我"],
  ["math", "∀x∈ℝ: x² ≥ 0 ⇒ √(x²) = |x|"],
];

// Character classes the random strings draw from.
const classes = [
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  "äöüßéèêçñÄÖÜÉÀ",
  "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГД",
  "我你他的是在不了有和人这中大为上个国",
  "あいうえおかきくけこアイウエオカキ",
  "가나다라마바사아자차카타파하",
  "0123456789",
  "０１２３ＡＢＣａｂｃ",
  " ", " ", " ", "  ",
  "\t", "\n", "\r\n", "\r",
  ".,;:!?-'\"()[]{}@#$%^&*_+=/\\|<>~`",
  "'s'S're'VE'll'd'M",
  "😀🎉👍🏽🍕",
  "👨‍👩‍👧",
  "e\u0301a\u0308o\u0302",
  "\u00a0\u3000\u2003",
  "\u0000\u0007\u001b\u007f",
  "<|im_end|>", "<|im_start|>",
];

// mulberry32: a small seeded generator, so the corpus is reproducible.
function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomCases(n, seed) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    const len = 1 + Math.floor(r() * 24);
    let s = "";
    for (let k = 0; k < len; k++) {
      const c = classes[Math.floor(r() * classes.length)];
      if (c.startsWith("<|") || c === "\r\n" || c === "  " || c === "👨‍👩‍👧") { s += c; continue; }
      const chars = Array.from(c);
      s += chars[Math.floor(r() * chars.length)];
    }
    out.push([`random_${String(i).padStart(3, "0")}`, s]);
  }
  return out;
}

// Code-point ranges for the wide random strings: ASCII, controls, Latin,
// combining marks, Greek/Cyrillic/Armenian, Hebrew/Arabic, Indic and Thai,
// Hangul jamo, punctuation and symbols, CJK punctuation, CJK, Hangul,
// variation selectors and full-width forms, emoji, the astral planes
// (Linear B, mathematical letters, CJK extension B) and private use.
const widePools = [[0x20, 0x7f], [0x0, 0x20], [0x80, 0x250], [0x300, 0x370], [0x370, 0x530], [0x590, 0x700],
  [0x900, 0xe80], [0x1100, 0x1200], [0x2000, 0x2070], [0x2070, 0x2200], [0x3000, 0x3100], [0x4e00, 0x9fff],
  [0xac00, 0xd7a3], [0xfe00, 0xff70], [0x1f300, 0x1fa00], [0x10000, 0x10400], [0x1d400, 0x1d800],
  [0x20000, 0x20100], [0xe000, 0xe010]];

export function wideCases(n, seed) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    const len = 1 + Math.floor(r() * 30);
    for (let k = 0; k < len; k++) {
      const p = widePools[Math.floor(r() * widePools.length)];
      s += String.fromCodePoint(p[0] + Math.floor(r() * (p[1] - p[0])));
      if (r() < 0.2) s += " ";
    }
    out.push([`wide_${String(i).padStart(3, "0")}`, s]);
  }
  return out;
}
