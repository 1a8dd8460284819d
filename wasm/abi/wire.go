package abi

import "encoding/json"

// The JSON commands a host sends through ExportCall and the replies it
// gets. A reply always carries Error ("" on success).

// Command is one call into the guest session. Op selects the fields used:
//
//	create: Model (an EngineSpec)
//	submit: Stream, Request (a core.Request as JSON)
//	cancel: Stream
//	step:   —  (one engine step; the reply lists the events it produced)
//	load:   —  (the engine's load)
//	probe:  Probe
//	conformance: Suite (needs no create)
//	codec:  Codec (needs no create; the reply's PCM holds the samples)
//	close:  —
type Command struct {
	Op      string          `json:"op"`
	Model   *EngineSpec     `json:"model,omitempty"`
	Stream  uint64          `json:"stream,omitempty"`
	Request json.RawMessage `json:"request,omitempty"`
	Probe   *ProbeSpec      `json:"probe,omitempty"`
	Suite   *SuiteSpec      `json:"suite,omitempty"`
	Codec   *CodecSpec      `json:"codec,omitempty"`
}

// CodecSpec asks the guest to decode codes with the codec decoder on a
// guest backend (native kernels as host functions), outside any engine:
// the native-vs-WASI parity check of the codec graph. The model is the
// codec directory Dir (read from the guest's read-only filesystem) or, when
// Dir is empty, the synthetic codec of Config (a speech_tokenizer
// config.json) and Seed (codec.NewSynthetic), or, when Load is set, the
// decoder the host loaded (replayed, see CodecLoad). The frames are decoded
// on one stream in the given pushes (nil: one call).
type CodecSpec struct {
	Load      *CodecLoad      `json:"load,omitempty"`
	Dir       string          `json:"dir,omitempty"`
	Config    json.RawMessage `json:"config,omitempty"`
	Seed      uint64          `json:"seed,omitempty"`
	Precision string          `json:"precision"`
	Codes     [][16]int32     `json:"codes"`
	Pushes    []int           `json:"pushes,omitempty"`
}

// SuiteSpec asks the guest to replay conformance suites (testvectors.Run)
// from its read-only filesystem, on a guest backend.
type SuiteSpec struct {
	Dirs       []string `json:"dirs"`
	Kind       string   `json:"kind,omitempty"`
	Precisions []string `json:"precisions,omitempty"`
}

// Command ops.
const (
	CmdCreate = "create"
	CmdSubmit = "submit"
	CmdCancel = "cancel"
	CmdStep   = "step"
	CmdLoad   = "load"
	CmdProbe  = "probe"
	CmdClose  = "close"
	CmdSuite  = "conformance"
	CmdCodec  = "codec"
)

// EngineSpec describes the engine the guest builds: the model's config (a
// predictor.Config as JSON), the precision, the handles the host made while
// loading (replayed, see Created) and the engine's settings.
type EngineSpec struct {
	Config    json.RawMessage `json:"config"`
	Precision string          `json:"precision"`
	Created   []Created       `json:"created"`
	Guards    json.RawMessage `json:"guards,omitempty"` // the host load's predictor.Guards, which the guest's replay must use
	MaxBatch  int             `json:"max_batch"`
	MaxLen    int             `json:"max_len,omitempty"`
	Path      string          `json:"path,omitempty"`
	Engine    json.RawMessage `json:"engine,omitempty"` // a core.Config without model, ids and injected dependencies
	Codec     *CodecLoad      `json:"codec,omitempty"`  // the codec stage's decoder, when the engine has one
}

// CodecLoad is a codec decoder the host loaded natively through its
// recorder, for the guest to replay (wasm.Backend.ReplayCodec, which runs
// codec.Replay): its speech_tokenizer config.json, the precision it was
// loaded in, and the handles the host made, in call order. The weights are
// host-owned and never enter guest memory; the guest makes only its
// streams' window KV states.
type CodecLoad struct {
	Config    json.RawMessage `json:"config"`
	Precision string          `json:"precision"`
	Created   []Created       `json:"created"`
}

// ProbeSpec asks the guest to run its model directly (no engine): a
// prefill of Embeds (rows × hidden), then Steps frames with greedy codes,
// returning every logit bit pattern (for native-vs-WASI parity tests).
type ProbeSpec struct {
	Embeds []uint32 `json:"embeds"` // float32 bits
	Steps  int      `json:"steps"`
}

// Reply is the guest's answer to one Command.
type Reply struct {
	Error  string  `json:"error,omitempty"`
	Status Status  `json:"status,omitempty"` // the abi code under Error, when one applies
	Busy   bool    `json:"busy,omitempty"`
	Events []Event `json:"events,omitempty"`
	Load   *Load   `json:"load,omitempty"`
	// Probe results: logits bits in call order and the codes chosen.
	Logits []uint32    `json:"logits,omitempty"`
	Codes  [][16]int32 `json:"codes,omitempty"`
	// Report is a conformance report (testvectors.Report as JSON).
	Report json.RawMessage `json:"report,omitempty"`
	// PCM is the samples of a codec command, in guest memory (see PCM).
	PCM *PCM `json:"pcm,omitempty"`
}

// PCM names float32 samples the guest hands to the host in binary: Len
// samples (4 bytes each, little-endian IEEE 754, 4-byte aligned) at guest
// offset Ptr. The guest keeps them there until the next command it is sent,
// so the host copies them out (host: instance.pcm, through the checked
// memory view) after the reply and before its next call. A reply or event
// carries the reference, never the samples as JSON numbers. Len 0 is no
// samples (Ptr is then ignored).
type PCM struct {
	Ptr uint32 `json:"p"`
	Len int32  `json:"n"`
}

// Event is one stream event crossing the boundary (core.Event without the
// chunk's code slice and stream pointer, which the host rebuilds).
type Event struct {
	Stream uint64 `json:"s"`
	Kind   int    `json:"k"` // core.EventKind
	// frame
	Index int       `json:"i,omitempty"`
	Codes [16]int32 `json:"c,omitempty"`
	At    int64     `json:"at,omitempty"` // ns of the guest engine clock
	Step  uint64    `json:"st,omitempty"`
	// chunk
	First       int   `json:"f,omitempty"`
	Frames      int   `json:"n,omitempty"`
	LeftContext int   `json:"lc,omitempty"`
	Final       bool  `json:"fin,omitempty"`
	ReadyAt     int64 `json:"ra,omitempty"`
	PutAt       int64 `json:"pa,omitempty"`
	GotAt       int64 `json:"ga,omitempty"`
	// end
	Reason int    `json:"r,omitempty"` // core.EndReason
	Err    string `json:"e,omitempty"`
	Cap    int    `json:"cap,omitempty"`
	// PCM is the audio of a chunk event when the guest engine runs the
	// codec stage (the samples stay in guest memory; see PCM).
	PCM *PCM `json:"pcm,omitempty"`
}

// Load is the guest engine's load (core.Load).
type Load struct {
	Running int    `json:"running"`
	Waiting int    `json:"waiting"`
	KVBytes int64  `json:"kv_bytes"`
	Steps   uint64 `json:"steps"`
	// The guest's own accounting since create: steps run, wall ms inside
	// Step, of which ms inside the model (graph and kernels), and ms
	// draining and encoding events.
	GuestSteps uint64  `json:"guest_steps"`
	StepMS     float64 `json:"step_ms"`
	ModelMS    float64 `json:"model_ms"`
	PickMS     float64 `json:"pick_ms,omitempty"` // of StepMS, in the code predictor's sampling callbacks
	EncodeMS   float64 `json:"encode_ms"`
	// The guest model's prefills since create: single-sequence Prefill
	// calls, batched PrefillBatch calls and the sequences those carried.
	Prefills       uint64 `json:"prefills,omitempty"`
	BatchPrefills  uint64 `json:"batch_prefills,omitempty"`
	BatchPrefilled uint64 `json:"batch_prefilled,omitempty"`
}
