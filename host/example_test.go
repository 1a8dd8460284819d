package host_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
)

// Open an engine whose control core runs as a WASI module under wazero
// (Mode: host.Native links it in instead; nothing else changes), submit one
// request and read its frames.
func ExampleOpen() {
	ctx := context.Background()
	e, err := host.Open(ctx, host.Options{
		Model: "synth:tiny", // or a Hugging Face Qwen3-TTS checkpoint directory
		Mode:  host.WASI,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	go e.Run(ctx) // steps the engine while there is work

	req := core.NewRequest([]int32{9, 4, 17}) // text token ids
	req.Talker.Seed = core.Seed(1)
	req.Talker.MinTokens = 8 // no EOS before 8 frames…
	req.MaxFrames = 8        // …and no more than 8
	s, err := e.Submit(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	frames := 0
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			break // io.EOF after the end event
		}
		switch ev.Kind {
		case core.EventFrame:
			frames++ // ev.Frame.Codes holds the 16 codes of one 80 ms frame
		case core.EventEnd:
			fmt.Println("frames:", frames, "end:", ev.End.Reason)
		}
	}
	// Output: frames: 8 end: length
}

// Speak a text into a WAV file as the audio is made: the engine decodes each
// chunk of codes with the stream's own codec state and the chunk events
// carry the PCM (24 kHz mono float32).
func ExampleEngine_Request() {
	ctx := context.Background()
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny"}) // its codec comes along
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	go e.Run(ctx)
	req, err := e.Request(core.TextInput{Text: "Hello, world."})
	if err != nil {
		log.Fatal(err)
	}
	req.MaxFrames, req.Talker.Seed = 10, core.Seed(1)
	s, err := e.Submit(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.CreateTemp("", "hello-*.wav")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	w, _ := audio.NewWAVWriter(f, 24000, 1)
	for ev, err := s.Next(ctx); err == nil; ev, err = s.Next(ctx) {
		if ev.Kind == core.EventChunk {
			w.Write(ev.Chunk.PCM) // playable as it arrives
		}
	}
	w.Close() // patches the sizes (a pipe keeps "unknown length")
	fmt.Println(w.Samples(), "samples:", s.End().Frames, "frames of 1920")
	f.Close()
	// Output: 19200 samples: 10 frames of 1920
}
