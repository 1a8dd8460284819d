package sched_test

import (
	"fmt"

	"github.com/omni-tts/omni/sched"
)

func ExampleMaxSeqsWithoutPreemption() {
	bpt := sched.Qwen3TTSTalker().BytesPerToken("bfloat16")
	need := sched.KVBytesForSeqs(4, 2048, bpt, sched.DefaultBlockSize)
	fmt.Println(bpt, need>>20, "MiB")
	fmt.Println(sched.MaxSeqsWithoutPreemption(need, 2048, bpt, 16), sched.MaxSeqsWithoutPreemption(need-1, 2048, bpt, 16))
	// Output:
	// 114688 896 MiB
	// 4 3
}

func ExampleShouldThrottlePrefills() {
	chunks := []sched.ChunkArrival{{TMS: 30, AudioMS: 80}, {TMS: 190, AudioMS: 2000}}
	slack := sched.PlaybackSlack(chunks, 110) // the player has just run dry
	eta := sched.NextChunkETA(2, 40, 1)       // two steps of 40 ms and a 1 ms hop
	fmt.Println(slack, sched.ShouldThrottlePrefills(slack, eta, 50))
	// Output: 0 true
}

func ExampleDeriveChunkSchedule() {
	// A generator making 10 frames a second (RTF 1.25), one chunk per ramp step.
	chunks := []sched.ChunkSamples{{TMS: 225, Samples: 3840}, {TMS: 625, Samples: 7680}, {TMS: 1425, Samples: 15360}, {TMS: 3025, Samples: 30720}}
	c, _ := sched.DeriveChunkSchedule(chunks, 24000, sched.DefaultCalibrateOptions())
	fmt.Printf("rtf %.2f min %d margin %.0f ms ramp %v adaptive %v\n", c.RTF, c.MinFrames, c.MarginMS, c.Ramp, c.Adaptive)
	// Output: rtf 1.25 min 7 margin 140 ms ramp [7 14 25] adaptive true
}
