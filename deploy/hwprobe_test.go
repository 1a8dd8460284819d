package deploy

import (
	"os"
	"slices"
	"testing"
	"testing/fstest"
)

func TestProbeFSX86Fixture(t *testing.T) {
	h, err := ProbeFS(os.DirFS("testdata/x86_smt"), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if h.Arch != "x86_64" || h.CPUModel != "Intel(R) Xeon(R) Platinum 8480C" {
		t.Errorf("arch %q model %q", h.Arch, h.CPUModel)
	}
	if h.CPUSignature != "family 6 model 143" {
		t.Errorf("signature %q, want the fixture's family 6 model 143", h.CPUSignature)
	}
	wantFlags := []string{"amx_bf16", "amx_int8", "amx_tile", "avx2", "avx512", "avx512_bf16", "avx512_vnni", "avx512bw", "avx512vl", "avx_vnni", "f16c", "fma"}
	if !slices.Equal(h.CPUFlags, wantFlags) {
		t.Errorf("flags %v, want %v", h.CPUFlags, wantFlags)
	}
	if h.NLogical != 4 || h.NPhysical != 2 {
		t.Errorf("logical %d physical %d, want 4 and 2 (SMT pairs)", h.NLogical, h.NPhysical)
	}
	if h.L1DBytes != 48*1024 || h.L2Bytes != 2*MiB || h.L3Bytes != 105*MiB {
		t.Errorf("caches L1d %d L2 %d L3 %d", h.L1DBytes, h.L2Bytes, h.L3Bytes)
	}
	if h.RAMTotalBytes != 16384000*1024 || h.RAMAvailableBytes != 12288000*1024 {
		t.Errorf("RAM total %d available %d", h.RAMTotalBytes, h.RAMAvailableBytes)
	}
	if !h.SupportsBF16 || h.SupportsFP16 || h.Class() != X86CPU || h.NUMANodes != 1 || h.HostOS != "linux" {
		t.Errorf("bf16 %v fp16 %v class %s numa %d os %s", h.SupportsBF16, h.SupportsFP16, h.Class(), h.NUMANodes, h.HostOS)
	}
	if len(h.Clusters) != 1 || !slices.Equal(h.Clusters[0], []int{0, 1, 2, 3}) {
		t.Errorf("clusters %v, want one of every CPU (no cpufreq)", h.Clusters)
	}
}

func TestProbeFSRK3588Fixture(t *testing.T) {
	h, err := ProbeFS(os.DirFS("testdata/rk3588"), "arm64")
	if err != nil {
		t.Fatal(err)
	}
	if h.Class() != ARM64CPU || h.NLogical != 8 || h.NPhysical != 8 {
		t.Errorf("class %s logical %d physical %d", h.Class(), h.NLogical, h.NPhysical)
	}
	if !slices.Equal(h.CPUFlags, []string{"dotprod", "fp16_arith", "neon"}) {
		t.Errorf("flags %v", h.CPUFlags)
	}
	if h.CPUSignature != "cores 0x41:0xd05,0x41:0xd0b" {
		t.Errorf("signature %q, want Arm's Cortex-A55 and A76 (implementer 0x41, parts 0xd05, 0xd0b)", h.CPUSignature)
	}
	if len(h.Clusters) != 2 || !slices.Equal(h.Clusters[0], []int{4, 5, 6, 7}) || !slices.Equal(h.BigCPUs(), []int{4, 5, 6, 7}) {
		t.Errorf("clusters %v, want the 2.4 GHz cluster 4-7 first", h.Clusters)
	}
	if h.SupportsBF16 || !h.SupportsFP16 {
		t.Errorf("bf16 %v fp16 %v, want fp16 without bf16", h.SupportsBF16, h.SupportsFP16)
	}
}

func TestProbeFSMissingFilesAndWSL(t *testing.T) {
	h, err := ProbeFS(fstest.MapFS{}, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if h.NLogical != 0 || h.RAMTotalBytes != 0 || h.Class() != X86CPU {
		t.Errorf("empty root: %+v", h)
	}
	if h.Validate() == nil {
		t.Error("a profile with no CPUs validates")
	}
	w, _ := ProbeFS(os.DirFS("testdata/wsl"), "amd64")
	if w.HostOS != "wsl2" || w.NLogical != 1 || w.NPhysical != 1 {
		t.Errorf("wsl: os %s logical %d physical %d", w.HostOS, w.NLogical, w.NPhysical)
	}
	j, _ := ProbeFS(fstest.MapFS{"etc/nv_tegra_release": {Data: []byte("R35")}}, "arm64")
	if j.Class() != Jetson {
		t.Errorf("tegra root: class %s, want jetson", j.Class())
	}
}
