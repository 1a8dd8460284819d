"use strict";
// The playground's clone tab (Base models): record a reference from the
// microphone (MediaRecorder) or pick a file, turn it into a 24 kHz mono
// WAV in the browser (so any format the browser decodes works), add it to
// the voice library with a name, the speaker's consent and the transcript
// (POST /v1/audio/voices), then speak with it from the Speak tab.
// window.omniClone is read by the browser test.
window.omniClone = { state: "idle", error: null, clipSamples: 0, voices: [] };

(() => {
  const $ = (id) => document.getElementById(id);
  const RATE = 24000;
  const cs = window.omniClone;
  let recorder = null, chunks = [], clip = null; // clip: the WAV Blob to upload

  function status(msg, err) { $("cloneStatus").textContent = msg; $("cloneStatus").className = err ? "err" : ""; }
  function fail(msg) { cs.state = "error"; cs.error = msg; status(msg, true); }

  function showTab(name) {
    for (const t of ["speak", "clone"]) {
      $(t + "Panel").hidden = t !== name;
      $(t + "Tab").classList.toggle("active", t === name);
    }
  }

  // toWAV decodes any audio the browser can (a recording's webm/opus, mp3,
  // m4a, …), mixes it to mono and resamples it to 24 kHz, as 16-bit WAV.
  async function toWAV(blob) {
    const ac = new AudioContext();
    let buf;
    try { buf = await ac.decodeAudioData(await blob.arrayBuffer()); } finally { ac.close(); }
    const n = Math.max(1, Math.ceil(buf.duration * RATE));
    const off = new OfflineAudioContext(1, n, RATE);
    const src = off.createBufferSource();
    src.buffer = buf; src.connect(off.destination); src.start();
    const pcm = (await off.startRendering()).getChannelData(0);
    const out = new ArrayBuffer(44 + 2 * pcm.length), dv = new DataView(out);
    const str = (o, s) => { for (let i = 0; i < s.length; i++) dv.setUint8(o + i, s.charCodeAt(i)); };
    str(0, "RIFF"); dv.setUint32(4, 36 + 2 * pcm.length, true); str(8, "WAVEfmt ");
    dv.setUint32(16, 16, true); dv.setUint16(20, 1, true); dv.setUint16(22, 1, true);
    dv.setUint32(24, RATE, true); dv.setUint32(28, 2 * RATE, true); dv.setUint16(32, 2, true); dv.setUint16(34, 16, true);
    str(36, "data"); dv.setUint32(40, 2 * pcm.length, true);
    for (let i = 0; i < pcm.length; i++) dv.setInt16(44 + 2 * i, Math.max(-32768, Math.min(32767, Math.round(pcm[i] * 32767))), true);
    return { wav: new Blob([out], { type: "audio/wav" }), samples: pcm.length };
  }

  async function useClip(blob, what) {
    try {
      const { wav, samples } = await toWAV(blob);
      clip = wav; cs.clipSamples = samples; cs.state = "recorded";
      $("clipPlayer").src = URL.createObjectURL(wav); $("clipPlayer").hidden = false;
      status(what + ": " + (samples / RATE).toFixed(2) + " s ready. Name it, confirm consent, add it.");
      $("addVoice").disabled = false;
    } catch (e) { fail("Could not decode the " + what.toLowerCase() + ": " + e); }
  }

  async function record() {
    if (recorder) { recorder.stop(); return; }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      chunks = [];
      recorder = new MediaRecorder(stream);
      recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
      recorder.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        recorder = null; $("record").textContent = "● Record";
        useClip(new Blob(chunks, { type: chunks[0] ? chunks[0].type : "audio/webm" }), "Recording");
      };
      recorder.start(250);
      cs.state = "recording"; $("record").textContent = "■ Stop recording";
      status("Recording… read the transcript aloud, then stop (5–15 s is plenty).");
    } catch (e) { fail("No microphone: " + e); }
  }

  async function addVoice() {
    const name = $("cloneName").value.trim();
    if (!clip) { fail("Record or pick a clip first."); return; }
    if (!$("consentBox").checked) { fail("Confirm the speaker's consent first."); return; }
    const fd = new FormData();
    fd.append("name", name);
    fd.append("consent", $("consentText").textContent.trim());
    if ($("refText").value.trim()) fd.append("ref_text", $("refText").value.trim());
    fd.append("x_vector_only", $("xvOnly").checked ? "true" : "false");
    fd.append("file", clip, "clip.wav");
    cs.state = "adding"; $("addVoice").disabled = true; status("Encoding the voice…");
    try {
      const resp = await fetch("/v1/audio/voices", { method: "POST", body: fd });
      const body = await resp.json();
      if (!resp.ok) throw new Error(body.error ? body.error.message : resp.status);
      await refresh(body.name);
      cs.state = "added"; cs.error = null;
      status("Added " + body.name + " (" + body.mode.replace("_", "-") + ", " + body.duration.toFixed(1) + " s). Speak with it in the Speak tab.");
    } catch (e) { fail("Could not add the voice: " + (e.message || e)); }
    finally { $("addVoice").disabled = !clip; }
  }

  async function remove(name) {
    const resp = await fetch("/v1/audio/voices/" + encodeURIComponent(name), { method: "DELETE" });
    if (!resp.ok) { fail("Could not delete " + name + ": " + resp.status); return; }
    status("Deleted " + name + ".");
    await refresh();
  }

  // refresh lists the library in the clone tab and in the Speak tab's
  // voice picker (selecting pick when given).
  async function refresh(pick) {
    const voices = await fetch("/v1/audio/voices").then((r) => r.json());
    cs.voices = voices.uploaded_voices.map((v) => v.name);
    const sel = $("voice"), prev = pick || sel.value;
    sel.textContent = "";
    for (const v of voices.uploaded_voices) {
      const o = document.createElement("option");
      o.value = v.name; o.textContent = v.name + " · cloned (" + v.mode.replace("_", "-") + ")";
      sel.appendChild(o);
    }
    if (cs.voices.includes(prev)) sel.value = prev;
    const list = $("voiceList");
    list.textContent = "";
    for (const v of voices.uploaded_voices) {
      const li = document.createElement("li");
      li.textContent = v.name + " — " + v.mode.replace("_", "-") + ", " + v.duration.toFixed(1) + " s ";
      const speakBtn = document.createElement("button");
      speakBtn.className = "secondary small"; speakBtn.textContent = "Speak with it";
      speakBtn.onclick = () => { sel.value = v.name; showTab("speak"); };
      const del = document.createElement("button");
      del.className = "secondary small"; del.textContent = "Delete";
      del.onclick = () => remove(v.name);
      li.append(speakBtn, " ", del);
      list.appendChild(li);
    }
    $("noVoices").hidden = cs.voices.length > 0;
    $("speak").disabled = cs.voices.length === 0;
  }

  // omniCloneInit is called by the page once it knows the model.
  window.omniCloneInit = async (model) => {
    $("speakTab").onclick = () => showTab("speak");
    $("cloneTab").onclick = () => showTab("clone");
    if (model.model_type !== "Base") {
      $("cloneBody").hidden = true;
      $("cloneNote").textContent = "Cloning needs a Base model; this server serves " + (model.model_type || "another kind") + ".";
      return;
    }
    $("cloneNote").textContent = "This Base model speaks in the voice of a reference clip.";
    $("record").onclick = record;
    $("clipFile").onchange = () => { const f = $("clipFile").files[0]; if (f) useClip(f, "File " + f.name); };
    $("addVoice").onclick = addVoice;
    await refresh();
    if (!cs.voices.length) showTab("clone");
  };
})();
