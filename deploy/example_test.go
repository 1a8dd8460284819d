package deploy_test

import (
	"fmt"

	"github.com/omni-tts/omni/deploy"
)

func ExampleResolve() {
	hw := deploy.HardwareProfile{Arch: "x86_64", NLogical: 8, NPhysical: 8,
		CPUFlags: []string{"avx2", "avx512", "avx512_bf16"}, SupportsBF16: true,
		RAMTotalBytes: 16 * deploy.GiB, RAMAvailableBytes: 12 * deploy.GiB}
	p, err := deploy.Resolve(deploy.ResolveOptions{Profile: "auto", Hardware: &hw, CacheDir: "-", ProfileDir: "-"})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Class, p.MaxNumSeqs, p.ChunkRamp, p.ModelThreads, p.CodecThreads)
	fmt.Println(p.Derivation["max_num_seqs"])
	// Output:
	// x86_cpu 2 [2 4 8 16 25] 5 3
	// min(class x86_cpu default 2, 15 admitted without preemption) = 2
}
