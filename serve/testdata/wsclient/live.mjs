// Drives omni's live-text WebSocket (/v1/audio/speech/stream) with the npm
// `ws` client: session.config, then the text word by word with a delay,
// input.done only once the first sentence's audio has arrived (so the test
// sees audio before input.done), then session.close. Prints a JSON summary
// on stdout for the Go test to check.
//
// usage: node live.mjs ws://host:port/v1/audio/speech/stream '<session.config JSON>' 'the text' delayMs
import WebSocket from "ws";

const [url, configJSON, text, delayArg] = process.argv.slice(2);
const delay = Number(delayArg || 20);
const words = text.split(" ");
const ws = new WebSocket(url);
const t0 = performance.now();
const out = { events: [], sentences: [], errors: [], audioBeforeDone: false, textToFirstAudioMs: null, total: null };
let cur = null;
let sentDone = false;
let completedAt = null; // when the word completing sentence 0 was sent
let firstAudio = null;
let firstSent = null; // when the first input.text was sent
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let gotAudio;
const audioArrived = new Promise((r) => (gotAudio = r));

ws.on("message", (data, isBinary) => {
  if (isBinary) {
    if (firstAudio === null) {
      firstAudio = performance.now();
      if (!sentDone) out.audioBeforeDone = true;
      gotAudio();
    }
    if (cur) cur.bytes += data.length;
    out.events.push("binary");
    return;
  }
  const m = JSON.parse(data.toString());
  out.events.push(m.type);
  switch (m.type) {
    case "audio.start":
      cur = { index: m.sentence_index, utterance: m.utterance_index, text: m.sentence_text, format: m.format, rate: m.sample_rate, bytes: 0 };
      break;
    case "audio.done":
      cur.frames = m.frames;
      cur.endReason = m.end_reason;
      out.sentences.push(cur);
      cur = null;
      break;
    case "session.done":
      out.total = m.total_sentences;
      break;
    case "error":
      out.errors.push(m.message);
      gotAudio();
      break;
  }
});

const closed = new Promise((resolve) => ws.on("close", resolve));
await new Promise((resolve, reject) => {
  ws.on("open", resolve);
  ws.on("error", reject);
});
ws.send(configJSON);
for (let i = 0; i < words.length; i++) {
  const w = (i > 0 ? " " : "") + words[i];
  ws.send(JSON.stringify({ type: "input.text", text: w }));
  if (firstSent === null) firstSent = performance.now();
  // the first word after the first sentence's end completes it
  if (completedAt === null && i > 0 && /[.!?]$/.test(words[i - 1])) completedAt = performance.now();
  await sleep(delay);
}
await Promise.race([audioArrived, sleep(60000)]);
sentDone = true;
ws.send(JSON.stringify({ type: "input.done" }));
ws.send(JSON.stringify({ type: "session.close" }));
await Promise.race([closed, sleep(60000)]);
if (firstAudio !== null && completedAt !== null) out.textToFirstAudioMs = firstAudio - completedAt;
if (firstAudio !== null) out.firstTextToAudioMs = firstAudio - firstSent;
out.wallMs = performance.now() - t0;
console.log(JSON.stringify(out));
process.exit(0); // pending race timers would keep node alive
