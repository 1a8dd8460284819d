// clone.mjs clones a voice through omni serve with the official OpenAI
// Node SDK, as a program written for OpenAI's custom voices would: it adds
// the clip with audio.voices.create, speaks with voice {id}, speaks with
// vLLM-Omni's ref_audio/ref_text extra fields, deletes the voice, and
// records the SDK's errors. The Go test (serve/nodeclient_clone_test.go)
// starts the server, runs this with OMNI_URL, OUT_DIR and CLIP (a WAV
// file) set, then checks the files it wrote.
import fs from "node:fs";
import path from "node:path";
import OpenAI, { toFile } from "openai";

const base = process.env.OMNI_URL;
const out = process.env.OUT_DIR;
const clipPath = process.env.CLIP;
if (!base || !out || !clipPath) {
  console.error("clone.mjs: set OMNI_URL, OUT_DIR and CLIP");
  process.exit(2);
}
const client = new OpenAI({ baseURL: base + "/v1", apiKey: "not-needed", maxRetries: 0 });
const clip = fs.readFileSync(clipPath);
const refText = "A buzz of two seconds.";
const input = "Hello from the Node client, in a cloned voice.";
const report = {};
const caught = (e) => ({ thrown: true, status: e.status, param: e.param ?? (e.error && e.error.param), name: e.constructor.name });

// 1. Add the voice: OpenAI's custom-voice upload (audio_sample, consent,
// name) plus the transcript for in-context cloning.
{
  const v = await client.audio.voices.create({
    name: "node-voice",
    consent: "The speaker agreed to be cloned for this test.",
    audio_sample: await toFile(clip, "clip.wav", { type: "audio/wav" }),
    ref_text: refText,
  });
  report.created = v;
}

// 2. Speak with it in OpenAI's custom-voice shape.
{
  const resp = await client.audio.speech.create({
    model: "omni", voice: { id: "node-voice" }, input, response_format: "pcm", seed: 3, max_new_tokens: 12,
  });
  const buf = Buffer.from(await resp.arrayBuffer());
  fs.writeFileSync(path.join(out, "voice.pcm"), buf);
  report.voice = { bytes: buf.length, contentType: resp.headers.get("content-type") };
}

// 3. The same clip as vLLM-Omni's ref_audio (a data URL), streamed as SSE.
{
  const resp = await client.audio.speech.create({
    model: "omni", input, response_format: "pcm", stream_format: "sse", seed: 3, max_new_tokens: 12,
    task_type: "Base", ref_audio: "data:audio/wav;base64," + clip.toString("base64"), ref_text: refText,
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
  fs.writeFileSync(path.join(out, "ref.pcm"), buf);
  report.ref = { bytes: buf.length, deltas: pcm.length, usage: done && done.usage };
}

// 4. The listing, then delete; deleting again and speaking with the
// deleted voice are the SDK's typed errors.
report.listed = await client.get("/audio/voices");
report.deleted = await client.audio.voices.delete("node-voice");
try {
  await client.audio.voices.delete("node-voice");
  report.deleteAgain = { thrown: false };
} catch (e) {
  report.deleteAgain = caught(e);
}
try {
  await client.audio.speech.create({ model: "omni", voice: { id: "node-voice" }, input: "x", response_format: "pcm" });
  report.gone = { thrown: false };
} catch (e) {
  report.gone = caught(e);
}

fs.writeFileSync(path.join(out, "report.json"), JSON.stringify(report, null, 2));
console.log(JSON.stringify(report));
