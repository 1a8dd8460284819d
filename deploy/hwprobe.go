package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// HardwareProfile describes a machine as the policy sees it.
type HardwareProfile struct {
	Arch              string   `json:"arch"` // x86_64 or aarch64 (Go's amd64/arm64 are normalised)
	CPUModel          string   `json:"cpu_model"`
	CPUSignature      string   `json:"cpu_signature,omitempty"` // x86 "family F model M", arm64 "cores I:P[,I:P…]" (implementer:part): the generation a VM's brand string may hide
	CPUFlags          []string `json:"cpu_flags"`               // normalised: avx2, avx512, avx512_vnni, avx512_bf16, amx_int8, neon, dotprod, …
	NLogical          int      `json:"n_logical"`
	NPhysical         int      `json:"n_physical"` // unique (package, core) pairs
	Clusters          [][]int  `json:"clusters"`   // logical CPUs grouped by max frequency, fastest first
	NUMANodes         int      `json:"numa_nodes"`
	RAMTotalBytes     int64    `json:"ram_total_bytes"`
	RAMAvailableBytes int64    `json:"ram_available_bytes"`
	L1DBytes          int64    `json:"l1d_bytes"`
	L2Bytes           int64    `json:"l2_bytes"`
	L3Bytes           int64    `json:"l3_bytes"`
	Accelerator       string   `json:"accelerator"` // none, cuda_discrete, cuda_unified, npu:<vendor>
	GPUName           string   `json:"gpu_name,omitempty"`
	GPUMemBytes       int64    `json:"gpu_mem_bytes,omitempty"`
	SupportsBF16      bool     `json:"supports_bf16"`
	SupportsFP16      bool     `json:"supports_fp16"`
	HostOS            string   `json:"host_os"` // linux, wsl2, …
	Source            string   `json:"source"`  // probe:<root>, override:<path>
}

// Class is the profile's hardware class: npu* → npu_phone, cuda_unified →
// jetson, cuda_discrete → cuda_discrete, aarch64 → arm64_cpu, else x86_cpu.
func (h HardwareProfile) Class() HardwareClass {
	switch {
	case strings.HasPrefix(h.Accelerator, "npu"):
		return NPUPhone
	case h.Accelerator == "cuda_unified":
		return Jetson
	case h.Accelerator == "cuda_discrete":
		return CUDADiscrete
	case h.Arch == "aarch64" || h.Arch == "arm64":
		return ARM64CPU
	}
	return X86CPU
}

// HasFlag reports whether the normalised flag is present.
func (h HardwareProfile) HasFlag(f string) bool { return slices.Contains(h.CPUFlags, f) }

// BigCPUs is the fastest cluster, or every logical CPU when there are no
// clusters.
func (h HardwareProfile) BigCPUs() []int {
	if len(h.Clusters) > 0 && len(h.Clusters[0]) > 0 {
		return slices.Clone(h.Clusters[0])
	}
	cpus := make([]int, max(h.NLogical, 1))
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}

// MaxLogicalCPUs bounds a hardware profile's n_logical (Linux builds for at
// most 8192 CPUs).
const MaxLogicalCPUs = 1 << 16

// Validate checks that the profile can drive the policy: its CPU counts,
// RAM, and clusters that hold distinct non-negative CPU ids, no more in all
// than n_logical.
func (h HardwareProfile) Validate() error {
	if h.NLogical < 1 || h.NLogical > MaxLogicalCPUs {
		return fmt.Errorf("deploy: hardware profile n_logical %d outside [1, %d]", h.NLogical, MaxLogicalCPUs)
	}
	if h.NPhysical < 1 {
		return fmt.Errorf("deploy: hardware profile n_physical %d, want ≥ 1", h.NPhysical)
	}
	if h.RAMTotalBytes < 0 || h.RAMAvailableBytes < 0 {
		return fmt.Errorf("deploy: hardware profile RAM total %d / available %d is negative", h.RAMTotalBytes, h.RAMAvailableBytes)
	}
	seen, n := map[int]bool{}, 0
	for i, c := range h.Clusters {
		for _, cpu := range c {
			if cpu < 0 {
				return fmt.Errorf("deploy: hardware profile clusters[%d]: CPU id %d is negative", i, cpu)
			}
			if seen[cpu] {
				return fmt.Errorf("deploy: hardware profile clusters[%d]: CPU %d is listed twice", i, cpu)
			}
			seen[cpu] = true
		}
		if n += len(c); n > h.NLogical {
			return fmt.Errorf("deploy: hardware profile clusters hold %d CPUs or more, n_logical is %d", n, h.NLogical)
		}
	}
	return nil
}

// normalise maps /proc/cpuinfo flag names to the profile's names; flags not
// listed are dropped.
var x86Flags = map[string]string{
	"avx2": "avx2", "fma": "fma", "f16c": "f16c",
	"avx512f": "avx512", "avx512bw": "avx512bw", "avx512vl": "avx512vl",
	"avx512_vnni": "avx512_vnni", "avx512_bf16": "avx512_bf16", "avx512_fp16": "avx512_fp16",
	"avx_vnni": "avx_vnni", "amx_bf16": "amx_bf16", "amx_tile": "amx_tile", "amx_int8": "amx_int8",
}

// armFlags maps /proc/cpuinfo "Features" names on arm64.
var armFlags = map[string]string{
	"asimd": "neon", "asimdhp": "fp16_arith", "asimddp": "dotprod",
	"i8mm": "i8mm", "bf16": "bf16", "sve": "sve", "sve2": "sve2", "sme": "sme",
}

// NormaliseFlags maps raw /proc/cpuinfo flags to the profile's names for
// arch, sorted and without duplicates.
func NormaliseFlags(arch string, raw []string) []string {
	table := x86Flags
	if arch == "aarch64" || arch == "arm64" {
		table = armFlags
	}
	var out []string
	for _, f := range raw {
		if n, ok := table[strings.ToLower(f)]; ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// FillSupport sets SupportsBF16 and SupportsFP16 from the flags.
func (h *HardwareProfile) FillSupport() {
	if h.Arch == "aarch64" {
		h.SupportsBF16 = h.HasFlag("bf16")
		h.SupportsFP16 = h.HasFlag("fp16_arith")
		return
	}
	h.SupportsBF16 = h.HasFlag("avx512_bf16") || h.HasFlag("amx_bf16")
	h.SupportsFP16 = h.HasFlag("avx512_fp16")
}

// NormaliseArch maps Go's GOARCH names to the kernel's: amd64 → x86_64,
// arm64 → aarch64.
func NormaliseArch(arch string) string {
	switch arch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return arch
}

// ProbeFS reads a machine description from a Linux-style file system root
// (proc/cpuinfo, proc/meminfo, proc/version, sys/devices/system/cpu/…,
// sys/devices/system/node/…). Missing files leave fields zero; arch is the
// architecture the root describes (x86_64 or aarch64; Go names accepted).
// Tests pass fixtures (fstest.MapFS or os.DirFS of deploy/testdata).
func ProbeFS(root fs.FS, arch string) (HardwareProfile, error) {
	h := HardwareProfile{Arch: NormaliseArch(arch), Accelerator: "none", HostOS: "linux", NUMANodes: 1}
	if b, err := fs.ReadFile(root, "proc/cpuinfo"); err == nil {
		parseCPUInfo(&h, b)
	}
	if b, err := fs.ReadFile(root, "proc/meminfo"); err == nil {
		h.RAMTotalBytes = meminfoBytes(b, "MemTotal")
		h.RAMAvailableBytes = meminfoBytes(b, "MemAvailable")
	}
	if b, err := fs.ReadFile(root, "proc/version"); err == nil && bytes.Contains(bytes.ToLower(b), []byte("microsoft")) {
		h.HostOS = "wsl2"
	}
	cpus := sysCPUs(root)
	if len(cpus) > 0 {
		h.NLogical = len(cpus)
		if n := physicalFromSys(root, cpus); n > 0 {
			h.NPhysical = n
		}
		h.Clusters = clustersFromSys(root, cpus)
		readCaches(&h, root, cpus[0])
	}
	if nodes, err := fs.Glob(root, "sys/devices/system/node/node[0-9]*"); err == nil && len(nodes) > 0 {
		h.NUMANodes = len(nodes)
	}
	if _, err := fs.Stat(root, "etc/nv_tegra_release"); err == nil {
		h.Accelerator = "cuda_unified"
	}
	h.FillSupport()
	return h, nil
}

// parseCPUInfo fills model, signature, flags, logical and physical counts
// from /proc/cpuinfo.
func parseCPUInfo(h *HardwareProfile, b []byte) {
	type core struct{ pkg, id string }
	cores := map[core]bool{}
	var pkg, id string
	var raw []string
	sig := map[string]string{} // x86 family and model of the first CPU
	var imp string             // arm64: the current CPU's implementer
	var armCores []string      // arm64: every distinct implementer:part (big.LITTLE)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			if pkg != "" || id != "" {
				cores[core{pkg, id}] = true
			}
			pkg, id = "", ""
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			h.NLogical++
		case "model name", "Model", "Hardware":
			if h.CPUModel == "" {
				h.CPUModel = v
			}
		case "flags", "Features":
			if raw == nil {
				raw = strings.Fields(v)
			}
		case "cpu family", "model":
			if _, ok := sig[k]; !ok {
				sig[k] = v
			}
		case "CPU implementer":
			imp = v
		case "CPU part":
			if c := imp + ":" + v; !slices.Contains(armCores, c) {
				armCores = append(armCores, c)
			}
		case "physical id":
			pkg = v
		case "core id":
			id = v
		}
	}
	if pkg != "" || id != "" {
		cores[core{pkg, id}] = true
	}
	h.NPhysical = len(cores)
	if h.NPhysical == 0 {
		h.NPhysical = h.NLogical
	}
	h.CPUFlags = NormaliseFlags(h.Arch, raw)
	h.CPUSignature = cpuSignature(sig, armCores)
}

// cpuSignature names the CPU's generation from /proc/cpuinfo's numeric
// fields: "family F model M" on x86 (the fields present), "cores I:P,…"
// (every distinct implementer:part, sorted) on arm64, "" when the file has
// neither. Steppings are left out: a fleet of one generation differing in
// stepping shares one calibration.
func cpuSignature(sig map[string]string, cores []string) string {
	var fields []string
	for _, k := range []string{"cpu family", "model"} {
		if v, ok := sig[k]; ok {
			fields = append(fields, strings.TrimPrefix(k, "cpu ")+" "+v)
		}
	}
	if len(fields) > 0 {
		return strings.Join(fields, " ")
	}
	if len(cores) > 0 {
		slices.Sort(cores)
		return "cores " + strings.Join(cores, ",")
	}
	return ""
}

// meminfoBytes reads one "Key: N kB" line of /proc/meminfo as bytes.
func meminfoBytes(b []byte, key string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(f) > 1 && strings.EqualFold(f[1], "kB") {
			n *= 1024
		}
		return n
	}
	return 0
}

// sysCPUs lists the logical CPU ids under sys/devices/system/cpu, sorted.
func sysCPUs(root fs.FS) []int {
	dirs, err := fs.Glob(root, "sys/devices/system/cpu/cpu[0-9]*")
	if err != nil {
		return nil
	}
	var cpus []int
	for _, d := range dirs {
		if n, err := strconv.Atoi(strings.TrimPrefix(path.Base(d), "cpu")); err == nil {
			cpus = append(cpus, n)
		}
	}
	sort.Ints(cpus)
	return cpus
}

// readInt reads a file holding one integer.
func readInt(root fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// cpuDir is sys/devices/system/cpu/cpuN.
func cpuDir(n int) string { return "sys/devices/system/cpu/cpu" + strconv.Itoa(n) }

// physicalFromSys counts unique (physical_package_id, core_id) pairs.
func physicalFromSys(root fs.FS, cpus []int) int {
	seen := map[[2]int64]bool{}
	for _, c := range cpus {
		p, ok1 := readInt(root, cpuDir(c)+"/topology/physical_package_id")
		id, ok2 := readInt(root, cpuDir(c)+"/topology/core_id")
		if !ok1 || !ok2 {
			return 0
		}
		seen[[2]int64{p, id}] = true
	}
	return len(seen)
}

// clustersFromSys groups CPUs by cpufreq/cpuinfo_max_freq, fastest first;
// one cluster of every CPU when frequencies are unknown.
func clustersFromSys(root fs.FS, cpus []int) [][]int {
	byFreq := map[int64][]int{}
	for _, c := range cpus {
		f, ok := readInt(root, cpuDir(c)+"/cpufreq/cpuinfo_max_freq")
		if !ok {
			return [][]int{slices.Clone(cpus)}
		}
		byFreq[f] = append(byFreq[f], c)
	}
	freqs := make([]int64, 0, len(byFreq))
	for f := range byFreq {
		freqs = append(freqs, f)
	}
	slices.Sort(freqs)
	slices.Reverse(freqs)
	out := make([][]int, 0, len(freqs))
	for _, f := range freqs {
		out = append(out, byFreq[f])
	}
	return out
}

// readCaches reads cpuN/cache/index*/{level,type,size}.
func readCaches(h *HardwareProfile, root fs.FS, cpu int) {
	idx, _ := fs.Glob(root, cpuDir(cpu)+"/cache/index[0-9]*")
	for _, d := range idx {
		level, ok := readInt(root, d+"/level")
		if !ok {
			continue
		}
		tb, _ := fs.ReadFile(root, d+"/type")
		typ := strings.TrimSpace(string(tb))
		sb, err := fs.ReadFile(root, d+"/size")
		if err != nil {
			continue
		}
		size := parseCacheSize(strings.TrimSpace(string(sb)))
		switch {
		case level == 1 && typ == "Data":
			h.L1DBytes = size
		case level == 2 && typ != "Instruction":
			h.L2Bytes = size
		case level == 3 && typ != "Instruction":
			h.L3Bytes = size
		}
	}
}

// parseCacheSize reads "48K", "2048K", "260M" as bytes.
func parseCacheSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1024, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = MiB, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = GiB, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n * mult
}
