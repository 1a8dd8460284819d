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
//	close:  —
type Command struct {
	Op      string          `json:"op"`
	Model   *EngineSpec     `json:"model,omitempty"`
	Stream  uint64          `json:"stream,omitempty"`
	Request json.RawMessage `json:"request,omitempty"`
	Probe   *ProbeSpec      `json:"probe,omitempty"`
	Suite   *SuiteSpec      `json:"suite,omitempty"`
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
