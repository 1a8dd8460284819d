package core_test

import (
	"context"
	"fmt"
	"io"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// Example runs one request through an engine on the synthetic tiny model
// with the native backend, reading its frames as they come.
func Example() {
	src, err := predictor.OpenModel("synth:tiny")
	if err != nil {
		panic(err)
	}
	defer src.Close()
	b := simd.NewBackend(1)
	defer b.Close()
	w, err := predictor.LoadWeights(src, b, predictor.FP32)
	if err != nil {
		panic(err)
	}
	defer w.Free()
	m, err := core.NewModel(w, core.ModelOptions{MaxBatch: 4})
	if err != nil {
		panic(err)
	}
	e, err := core.New(core.Config{Model: m, IDs: core.IDsFromConfig(src.Config())})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go e.Run(ctx)

	req := core.NewRequest([]int32{9707, 11, 419, 374})
	req.Language = "english"
	req.MaxFrames = 6
	req.Talker.MinTokens = 6 // no EOS before the cap
	s, err := e.Submit(ctx, req)
	if err != nil {
		panic(err)
	}
	frames := 0
	for {
		ev, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if ev.Kind == core.EventFrame {
			frames++
		}
	}
	fmt.Println(frames, "frames, ended by", s.End().Reason)
	// Output: 6 frames, ended by length
}
