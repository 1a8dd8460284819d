// speech.mjs drives omni serve with the official OpenAI Node SDK, as a
// program written for OpenAI's speech endpoint would. The Go test
// (serve/nodeclient_test.go) starts the server, runs this script with
// OMNI_URL and OUT_DIR set, then checks the files it wrote.
import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";

const base = process.env.OMNI_URL;
const out = process.env.OUT_DIR;
if (!base || !out) {
  console.error("speech.mjs: set OMNI_URL and OUT_DIR");
  process.exit(2);
}
const client = new OpenAI({ baseURL: base + "/v1", apiKey: "not-needed", maxRetries: 0 });
const report = {};

// 1. Non-streaming: the whole WAV at once.
{
  const resp = await client.audio.speech.create({
    model: "omni",
    voice: "vivian",
    input: "Hello from the official OpenAI Node client.",
    response_format: "wav",
  });
  const buf = Buffer.from(await resp.arrayBuffer());
  fs.writeFileSync(path.join(out, "nonstream.wav"), buf);
  report.nonstream = { bytes: buf.length, contentType: resp.headers.get("content-type") };
}

// 2. Streaming raw pcm: consume the body chunk by chunk as it arrives.
{
  const resp = await client.audio.speech.create({
    model: "omni",
    voice: "ryan",
    input: "Streaming speech arrives in pieces as it is made.",
    response_format: "pcm",
    stream_format: "audio",
  });
  const parts = [];
  for await (const chunk of resp.body) parts.push(Buffer.from(chunk));
  const buf = Buffer.concat(parts);
  fs.writeFileSync(path.join(out, "stream.pcm"), buf);
  report.stream = { bytes: buf.length, chunks: parts.length, contentType: resp.headers.get("content-type") };
}

// 3. Streaming SSE: speech.audio.delta events, then speech.audio.done.
{
  const resp = await client.audio.speech.create({
    model: "omni",
    voice: "serena",
    input: "Server sent events carry base64 audio.",
    response_format: "pcm",
    stream_format: "sse",
  });
  const text = await resp.text();
  const pcm = [];
  let done = null;
  for (const block of text.split("\n\n")) {
    const data = block.split("\n").find((l) => l.startsWith("data: "));
    if (!data) continue;
    const ev = JSON.parse(data.slice(6));
    if (ev.type === "speech.audio.delta") pcm.push(Buffer.from(ev.audio, "base64"));
    else if (ev.type === "speech.audio.done") done = ev;
  }
  const buf = Buffer.concat(pcm);
  fs.writeFileSync(path.join(out, "sse.pcm"), buf);
  report.sse = { bytes: buf.length, deltas: pcm.length, usage: done && done.usage };
}

// 4. An error: the SDK raises its typed error with OpenAI's fields.
try {
  await client.audio.speech.create({ model: "omni", voice: "nobody", input: "x", response_format: "wav" });
  report.error = { thrown: false };
} catch (e) {
  report.error = { thrown: true, status: e.status, param: e.param ?? (e.error && e.error.param), type: e.type ?? (e.error && e.error.type), name: e.constructor.name };
}

// 5. speed (OpenAI's parameter, 0.25 to 4): the same request (seeded) at
// speed 1 and 2, pcm; the Go test compares their lengths.
report.speed = {};
for (const speed of [1, 2]) {
  const resp = await client.audio.speech.create({
    model: "omni",
    voice: "vivian",
    input: "Speed changes the pace and keeps the pitch.",
    response_format: "pcm",
    speed,
    seed: 11,
  });
  const buf = Buffer.from(await resp.arrayBuffer());
  fs.writeFileSync(path.join(out, `speed${speed}.pcm`), buf);
  report.speed[speed] = { bytes: buf.length };
}

// 6. A speed out of range: a 400 naming speed.
try {
  await client.audio.speech.create({ model: "omni", voice: "vivian", input: "x", response_format: "pcm", speed: 5 });
  report.speedError = { thrown: false };
} catch (e) {
  report.speedError = { thrown: true, status: e.status, param: e.param ?? (e.error && e.error.param) };
}

fs.writeFileSync(path.join(out, "report.json"), JSON.stringify(report, null, 2));
console.log(JSON.stringify(report));
