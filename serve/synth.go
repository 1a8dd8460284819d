package serve

import (
	"context"
	"time"
)

// SampleRate is the only output rate serve accepts from a Synthesizer: 24 kHz,
// Qwen3-TTS's native rate and the rate OpenAI defines for response_format pcm.
const SampleRate = 24000

// SamplesPerFrame is the audio one codec frame decodes to (80 ms at 24 kHz).
const SamplesPerFrame = 1920

// Synthesizer is what serve needs from a speech engine. An adapter over the
// engine implements it; servetest.Fake implements it for tests. Its methods
// are called from many goroutines at once.
type Synthesizer interface {
	// Info describes the served model; serve calls it once, at New.
	Info() ModelInfo
	// Start admits one request and returns its audio stream once it holds
	// a slot (its KV): it blocks while the request waits for capacity, and
	// serve counts the callers inside Start as the requests waiting
	// (omni_requests_waiting, bounded by Config.MaxWaiting) and times them
	// (omni_request_queue_seconds); ctx ends the wait. Errors are typed so
	// serve can answer with the right status: *FieldError (400),
	// *CapacityError (429), ErrDraining and ErrUnavailable (503),
	// *TooLongError (413); anything else is a 500.
	Start(ctx context.Context, req SpeechRequest) (AudioStream, error)
	// Load is a snapshot of the engine's occupancy, read at each /metrics
	// scrape.
	Load() Load
	// Health is nil while the engine serves, and an error wrapping
	// ErrUnavailable once it never will again (its loop stopped): /healthz
	// then fails and every request is answered 503.
	Health() error
}

// AudioStream is one admitted request's audio. Next is called by one
// goroutine; Close may be called from another, at any time, and more than once.
type AudioStream interface {
	// Next blocks until the next chunk is ready and returns it. It returns
	// io.EOF after the last chunk; any other error ends the stream (serve
	// reports it to the client in the stream). The chunk's PCM is valid until
	// the next call to Next or Close.
	Next(ctx context.Context) (Chunk, error)
	// Result summarises the stream; it is complete once Next has returned a
	// non-nil error.
	Result() Result
	// Close cancels generation if it is still running and frees the request's
	// KV cache at once. serve calls it when the client disconnects, on every
	// error, and after the last chunk.
	Close() error
}

// Chunk is audio as the engine made it: float32 samples in [-1, 1] at
// SampleRate, mono, and the number of codec frames they came from
// (len(PCM) == Frames*SamplesPerFrame for an engine that decodes whole frames).
type Chunk struct {
	PCM    []float32
	Frames int
}

// EndReason says why a stream ended.
type EndReason string

// The end reasons a Result carries.
const (
	EndEOS       EndReason = "eos"        // the model emitted end of speech
	EndMaxTokens EndReason = "max_tokens" // max_new_tokens (frames) reached
	EndCancelled EndReason = "cancelled"  // Close or ctx before the end
	EndError     EndReason = "error"      // the engine failed mid-stream
)

// Result is the summary of a finished stream.
type Result struct {
	Reason EndReason
	// Frames is the number of codec frames produced.
	Frames int
	// InputTokens is the prompt length in text tokens; OutputTokens is the
	// number of codec frames (each frame is one talker token).
	InputTokens, OutputTokens int
	// Steps is the engine's step attribution for this request: seconds spent
	// per phase (e.g. "talker", "predictor", "codec", "sampler"). serve adds
	// them to omni_step_seconds_total{phase}. May be nil.
	Steps map[string]float64
}

// Load is the engine's occupancy at one moment.
type Load struct {
	// Running streams hold KV; Waiting requests are admitted to the queue but
	// hold none yet.
	Running, Waiting int
	// KVBytesInUse and KVBytesBudget are the KV cache bytes reserved by
	// running streams and the most the engine will reserve.
	KVBytesInUse, KVBytesBudget int64
}

// ModelInfo describes the served model to clients (/v1/models,
// /v1/audio/voices, the playground) and to serve's validation.
type ModelInfo struct {
	// Name is the model id clients put in "model" (e.g. "omni").
	Name string
	// ModelType is the Qwen3-TTS task the checkpoint serves: "CustomVoice",
	// "VoiceDesign" or "Base" (vLLM-Omni's task_type values).
	ModelType string
	// Voices are the speakers the model knows; serve refuses others.
	Voices []Voice
	// Languages the model accepts ("English", "Chinese", …); "Auto" is always
	// accepted besides these.
	Languages []string
	// Instructions says whether the model follows an instruct text.
	Instructions bool
	// SampleRate must be SampleRate (24000).
	SampleRate int
	// MaxNewTokens is the default and the ceiling of max_new_tokens (frames).
	MaxNewTokens int
}

// Voice is one speaker the model knows.
type Voice struct {
	Name string `json:"name"`
	// Language is the speaker's native language, if known.
	Language string `json:"language,omitempty"`
	// Description is a short human description, if known.
	Description string `json:"description,omitempty"`
}

// SpeechRequest is a validated request as the Synthesizer receives it. Zero
// values mean "the model's default".
type SpeechRequest struct {
	Input string
	// Voice is a preset speaker of the model ("" on a Base model).
	Voice        string
	Instructions string
	// Clone is the voice reference of a Base model's request: a library
	// voice or the request's own ref_audio, prepared by Config.Voices
	// (voices.go). The synthesizer conditions on Clone.Ref; nil otherwise.
	Clone *PreparedVoice
	// Language is a name from ModelInfo.Languages or "" for automatic.
	Language string
	// TaskType is "CustomVoice", "VoiceDesign" or "Base", or "" (inferred).
	TaskType string
	// MaxNewTokens caps the codec frames; 0 means ModelInfo.MaxNewTokens.
	MaxNewTokens int
	// Seed, when set, makes sampling reproducible.
	Seed *uint64
	// Sampling overrides; nil fields keep the model's generation config.
	Temperature       *float64
	TopP              *float64
	TopK              *int
	RepetitionPenalty *float64
	// Received is when serve read the request (for queue-time accounting).
	Received time.Time
}
