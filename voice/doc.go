// Package voice is omni's voice library: a Voice is a reference clip
// prepared once for voice cloning on a Base model — the speaker encoder's
// x-vector and, in in-context mode, the reference's codes and transcript —
// kept in a small versioned file (Encode, Decode: every field checked on
// load, a corrupt file refused by name) in a directory (Library: one file
// per voice, written atomically). Voice.Clone gives the core.Clone a
// request carries; the transcript goes in core.TextInput.RefText, which the
// tokenizer turns into the clone's RefTextIDs.
//
// A voice is bound to the model it was prepared for (Model: the talker's
// hidden size and a digest of the encoders' weights); Voice.CheckModel
// refuses it on another model by name. Preparing a voice (decoding the
// clip, resampling, running the encoders) is host.OpenVoiceEncoder's job.
//
// voice is portable: it imports the standard library and omni/core only.
package voice
