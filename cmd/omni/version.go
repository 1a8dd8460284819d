package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/simd"
)

// versionCmd prints the build, the CPU features and the kernel level.
type versionCmd struct{}

// Run implements the "omni version" command.
func (versionCmd) Run(g *Globals, _ context.Context) error {
	rev, modified := "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		rev += "+dirty"
	}
	feats := []string{}
	for _, f := range []struct {
		name string
		id   cpuid.FeatureID
	}{
		{"avx2", cpuid.AVX2}, {"fma", cpuid.FMA3}, {"avx512f", cpuid.AVX512F},
		{"avx512bw", cpuid.AVX512BW}, {"avx512vl", cpuid.AVX512VL},
		{"avx512vnni", cpuid.AVX512VNNI}, {"avx512bf16", cpuid.AVX512BF16},
		{"avxvnni", cpuid.AVXVNNI}, {"amxint8", cpuid.AMXINT8},
	} {
		if cpuid.CPU.Supports(f.id) {
			feats = append(feats, f.name)
		}
	}
	levels := []string{}
	for _, l := range simd.Levels() {
		if simd.Supported(l) {
			levels = append(levels, l.String())
		}
	}
	fmt.Fprintf(g.Stdout, "omni %s (%s, %s/%s)\n", rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(g.Stdout, "cpu: %s, %s\n", bench.CPUName(), coresLine(runtime.NumCPU(), cpuid.CPU.PhysicalCores))
	fmt.Fprintf(g.Stdout, "features: %s\n", strings.Join(feats, " "))
	fmt.Fprintf(g.Stdout, "kernel levels supported: %s\n", strings.Join(levels, " "))
	fmt.Fprintf(g.Stdout, "kernel level in use: %s\n", simd.Active())
	return nil
}

// coresLine describes the CPUs the process may use (logical: its
// affinity) beside the physical cores CPUID reports, which a VM's
// hypervisor may make up (254 on a 2-vCPU "Turin-like" VM) or which may
// exceed a cpuset: a count above the logical CPUs is named as CPUID's, not
// as the process's.
func coresLine(logical, physical int) string {
	switch {
	case physical <= 0:
		return fmt.Sprintf("%d logical CPUs", logical)
	case physical > logical:
		return fmt.Sprintf("%d logical CPUs (CPUID reports %d physical cores: more than this process may use; kernels use at most %d threads by default)", logical, physical, logical)
	default:
		return fmt.Sprintf("%d physical cores, %d logical CPUs", physical, logical)
	}
}
