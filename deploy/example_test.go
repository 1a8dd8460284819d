package deploy_test

import (
	"fmt"

	"github.com/omni-tts/omni/deploy"
	"github.com/omni-tts/omni/sched"
)

func ExampleResolve() {
	hw := sched.HardwareProfile{Arch: "x86_64", NLogical: 8, NPhysical: 8,
		CPUFlags: []string{"avx2", "avx512", "avx512_bf16"}, SupportsBF16: true,
		RAMTotalBytes: 16 * sched.GiB, RAMAvailableBytes: 12 * sched.GiB}
	p, err := deploy.Resolve(deploy.ResolveOptions{Profile: "auto", Hardware: &hw, CacheDir: "-", ProfileDir: "-"})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Class, p.DType, p.MaxNumSeqs, p.ChunkRamp, p.ModelCPUs, p.CodecCPUs)
	fmt.Println(p.Derivation["max_num_seqs"])
	// Output:
	// x86_cpu bfloat16 2 [2 4 8 16 25] 0-4 5-7
	// min(class x86_cpu default 2, 30 admitted without preemption) = 2
}
