package servetest

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/omni-tts/omni/serve"
)

// BaseInfo is a Base model for the fake: no preset speakers (it speaks
// in the voice of a reference), no instructions.
func BaseInfo() serve.ModelInfo {
	info := DefaultInfo()
	info.ModelType = "Base"
	info.Voices = nil
	info.Instructions = false
	return info
}

// Ref is what Voices.Prepare makes of a clip: a summary of what it got,
// so a test can check the clip that reached the store.
type Ref struct {
	Samples     int     // samples at 24 kHz
	Peak        float32 // largest magnitude
	RefText     string
	XVectorOnly bool
}

// Voices is a fake serve.Voices: Prepare summarises the clip (a Ref),
// the library lives in memory. Safe for concurrent use; the zero value is
// ready.
type Voices struct {
	// Prepared, when set, is called by Prepare before it returns (e.g. to
	// hold it, or to fail); its error is Prepare's.
	Prepared func(clip serve.VoiceClip) error

	mu       sync.Mutex
	lib      map[string]libVoice
	prepares int
	loads    int
}

type libVoice struct {
	e serve.VoiceEntry
	v *serve.PreparedVoice
}

// XVectorBytes is the fake's speaker embedding size (1024 fp32, 0.6B's).
const XVectorBytes = 1024 * 4

// PreparedBytes is the memory the fake reports for a voice: the speaker
// embedding, plus 16 int32 codes per 1920-sample frame in in-context mode.
func PreparedBytes(samples int, xvOnly bool) int64 {
	if xvOnly {
		return XVectorBytes
	}
	frames := (samples + serve.SamplesPerFrame - 1) / serve.SamplesPerFrame
	return XVectorBytes + int64(frames)*16*4
}

// Prepare implements serve.Voices.
func (f *Voices) Prepare(ctx context.Context, clip serve.VoiceClip) (*serve.PreparedVoice, error) {
	if f.Prepared != nil {
		if err := f.Prepared(clip); err != nil {
			return nil, err
		}
	}
	ref := &Ref{Samples: len(clip.Samples), RefText: clip.RefText, XVectorOnly: clip.XVectorOnly}
	for _, x := range clip.Samples {
		ref.Peak = max(ref.Peak, x, -x)
	}
	mode := serve.VoiceModeInContext
	if clip.XVectorOnly {
		mode = serve.VoiceModeXVector
	}
	f.mu.Lock()
	f.prepares++
	f.mu.Unlock()
	return &serve.PreparedVoice{Mode: mode, RefText: clip.RefText, Seconds: clip.Seconds(),
		Bytes: PreparedBytes(len(clip.Samples), clip.XVectorOnly), Ref: ref}, nil
}

// Save implements serve.Voices.
func (f *Voices) Save(e serve.VoiceEntry, v *serve.PreparedVoice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lib == nil {
		f.lib = map[string]libVoice{}
	}
	if _, ok := f.lib[strings.ToLower(e.Name)]; ok {
		return serve.ErrVoiceExists
	}
	f.lib[strings.ToLower(e.Name)] = libVoice{e: e, v: v}
	return nil
}

// Load implements serve.Voices (names are case-insensitive, as a file
// system's may be).
func (f *Voices) Load(name string) (*serve.PreparedVoice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	lv, ok := f.lib[strings.ToLower(name)]
	if !ok {
		return nil, serve.ErrVoiceNotFound
	}
	f.loads++
	return lv.v, nil
}

// List implements serve.Voices.
func (f *Voices) List() ([]serve.VoiceEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]serve.VoiceEntry, 0, len(f.lib))
	for _, lv := range f.lib {
		out = append(out, lv.e)
	}
	slices.SortFunc(out, func(a, b serve.VoiceEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Delete implements serve.Voices.
func (f *Voices) Delete(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.lib[strings.ToLower(name)]; !ok {
		return serve.ErrVoiceNotFound
	}
	delete(f.lib, strings.ToLower(name))
	return nil
}

// Counts returns how many clips Prepare encoded and how many library
// voices Load read.
func (f *Voices) Counts() (prepares, loads int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.prepares, f.loads
}
