package deploy

import (
	"fmt"
	"strings"
)

// HardwareClass names a family of machines that share defaults.
type HardwareClass string

// The hardware classes of the original system's class table.
const (
	CUDADiscrete HardwareClass = "cuda_discrete"
	Jetson       HardwareClass = "jetson"
	X86CPU       HardwareClass = "x86_cpu"
	ARM64CPU     HardwareClass = "arm64_cpu"
	NPUPhone     HardwareClass = "npu_phone"
)

// GiB is 2^30 bytes.
const GiB = int64(1) << 30

// MiB is 2^20 bytes.
const MiB = int64(1) << 20

// ClassDefaults are a hardware class's starting values.
type ClassDefaults struct {
	MaxNumSeqs          int     // streams at once
	MaxModelLen         int     // tokens per stream (model stage)
	MaxModelLenCodec    int     // tokens per stream (codec stage)
	HeadroomBytes       int64   // memory kept free for everything else
	KVFraction          float64 // share of the budget for the model stage's KV cache
	ChunkMinFrames      int     // adaptive chunking: smallest chunk
	ChunkSafetyMarginMS float64 // adaptive chunking: audio kept ahead of the player
	EnforceEager        bool    // no graph capture (model stage)
	EnforceEagerCodec   bool    // no graph capture (codec stage)
	SmallVRAMBytes      int64   // below this a CUDA device runs eager
	ReadBWBytesPerS     float64 // checkpoint read bandwidth, for load timeouts
}

// Classes lists the hardware classes, accelerators first.
func Classes() []HardwareClass {
	return []HardwareClass{CUDADiscrete, Jetson, X86CPU, ARM64CPU, NPUPhone}
}

// Defaults returns the class table's row for c.
func Defaults(c HardwareClass) (ClassDefaults, error) {
	switch c {
	case CUDADiscrete:
		return ClassDefaults{4, 4096, 65536, 2 * GiB, 0.7, 2, 50, false, false, 8 * GiB, 2.0e9}, nil
	case Jetson:
		return ClassDefaults{2, 2048, 32768, 3 * GiB, 0.7, 2, 80, false, true, 16 * GiB, 0.8e9}, nil
	case X86CPU:
		return ClassDefaults{2, 2048, 16384, 2 * GiB, 0.7, 2, 120, true, true, 0, 1.0e9}, nil
	case ARM64CPU:
		return ClassDefaults{1, 2048, 16384, 1 * GiB, 0.7, 3, 160, true, true, 0, 0.4e9}, nil
	case NPUPhone:
		return ClassDefaults{1, 2048, 16384, 1 * GiB, 0.7, 4, 200, true, true, 0, 0.3e9}, nil
	}
	names := make([]string, 0, 5)
	for _, k := range Classes() {
		names = append(names, string(k))
	}
	return ClassDefaults{}, fmt.Errorf("deploy: hardware class %q unknown (want one of %s)", c, strings.Join(names, ", "))
}
