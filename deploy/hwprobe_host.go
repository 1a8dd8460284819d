package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// EnvHWProfile names a JSON hardware profile (a path, or the JSON itself
// when it starts with "{") that replaces the probe.
const EnvHWProfile = "OMNI_HW_PROFILE"

// ProbeHost describes this machine: the profile named by OMNI_HW_PROFILE if
// set, else ProbeFS over "/" with the CPU flags, model, physical cores and
// caches taken from the CPU itself (x/sys/cpu, cpuid) where it knows them.
func ProbeHost() (HardwareProfile, error) {
	if v := os.Getenv(EnvHWProfile); v != "" {
		return LoadHardwareProfile(v)
	}
	h, err := ProbeFS(os.DirFS("/"), runtime.GOARCH)
	if err != nil {
		return HardwareProfile{}, err
	}
	h.Source = "probe:/"
	fillFromCPU(&h)
	if err := h.Validate(); err != nil {
		return HardwareProfile{}, err
	}
	return h, nil
}

// LoadHardwareProfile reads a JSON hardware profile from a path, or parses
// it directly when spec starts with "{". Source becomes "override:<spec>".
func LoadHardwareProfile(spec string) (HardwareProfile, error) {
	var b []byte
	src := "override:inline"
	if strings.HasPrefix(strings.TrimSpace(spec), "{") {
		b = []byte(spec)
	} else {
		var err error
		if b, err = os.ReadFile(spec); err != nil {
			return HardwareProfile{}, fmt.Errorf("deploy: %s: %w", EnvHWProfile, err)
		}
		src = "override:" + spec
	}
	var h HardwareProfile
	if err := json.Unmarshal(b, &h); err != nil {
		return HardwareProfile{}, fmt.Errorf("deploy: hardware profile %s: %w", src, err)
	}
	h.Arch = NormaliseArch(h.Arch)
	if h.Arch == "" {
		h.Arch = NormaliseArch(runtime.GOARCH)
	}
	if h.Accelerator == "" {
		h.Accelerator = "none"
	}
	if h.NPhysical == 0 {
		h.NPhysical = h.NLogical
	}
	if h.NUMANodes == 0 {
		h.NUMANodes = 1
	}
	sort.Strings(h.CPUFlags)
	if !h.SupportsBF16 && !h.SupportsFP16 {
		h.FillSupport()
	}
	h.Source = src
	if err := h.Validate(); err != nil {
		return HardwareProfile{}, fmt.Errorf("%w (in %s)", err, src)
	}
	return h, nil
}

// fillFromCPU overrides the flags with what the running CPU and OS support
// and fills model, cores and caches the file system did not give.
func fillFromCPU(h *HardwareProfile) {
	if f := hostFlags(h.Arch); f != nil {
		h.CPUFlags = f
		h.FillSupport()
	}
	if h.CPUModel == "" {
		h.CPUModel = strings.TrimSpace(cpuid.CPU.BrandName)
	}
	if h.CPUSignature == "" && cpuid.CPU.Family > 0 {
		h.CPUSignature = fmt.Sprintf("family %d model %d", cpuid.CPU.Family, cpuid.CPU.Model)
	}
	if h.NLogical == 0 {
		h.NLogical = runtime.NumCPU()
	}
	if h.NPhysical == 0 {
		h.NPhysical = cpuid.CPU.PhysicalCores
		if h.NPhysical <= 0 {
			h.NPhysical = h.NLogical
		}
	}
	if h.L1DBytes == 0 && cpuid.CPU.Cache.L1D > 0 {
		h.L1DBytes = int64(cpuid.CPU.Cache.L1D)
	}
	if h.L2Bytes == 0 && cpuid.CPU.Cache.L2 > 0 {
		h.L2Bytes = int64(cpuid.CPU.Cache.L2)
	}
	if h.L3Bytes == 0 && cpuid.CPU.Cache.L3 > 0 {
		h.L3Bytes = int64(cpuid.CPU.Cache.L3)
	}
}

// hostFlags is the running CPU's normalised flags, AVX-512 and AMX gated on
// OS support (x/sys/cpu checks XGETBV); nil on other architectures.
func hostFlags(arch string) []string {
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	switch arch {
	case "x86_64":
		x := cpu.X86
		add(x.HasAVX2, "avx2")
		add(x.HasFMA, "fma")
		add(cpuid.CPU.Supports(cpuid.F16C), "f16c")
		avx512 := x.HasAVX512 && x.HasAVX512F
		add(avx512, "avx512")
		add(avx512 && x.HasAVX512BW, "avx512bw")
		add(avx512 && x.HasAVX512VL, "avx512vl")
		add(avx512 && x.HasAVX512VNNI, "avx512_vnni")
		add(avx512 && x.HasAVX512BF16, "avx512_bf16")
		add(avx512 && cpuid.CPU.Supports(cpuid.AVX512FP16), "avx512_fp16")
		add(x.HasAVXVNNI, "avx_vnni")
		add(x.HasAMXTile, "amx_tile")
		add(x.HasAMXInt8, "amx_int8")
		add(x.HasAMXBF16, "amx_bf16")
	case "aarch64":
		a := cpu.ARM64
		add(a.HasASIMD, "neon")
		add(a.HasASIMDHP, "fp16_arith")
		add(a.HasASIMDDP, "dotprod")
		add(a.HasI8MM, "i8mm")
		add(cpuid.CPU.Supports(cpuid.BF16), "bf16")
		add(a.HasSVE, "sve")
		add(a.HasSVE2, "sve2")
	default:
		return nil
	}
	sort.Strings(out)
	return out
}
