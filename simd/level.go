package simd

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// Level is a kernel implementation level. Every kernel family has one
// implementation per level; the generic level is plain Go and always works.
type Level int

const (
	// Generic is the portable pure-Go level, compiled on every platform.
	Generic Level = iota
	// AVX2 uses 256-bit AVX2/FMA Go assembly.
	AVX2
	// AVX512VNNI uses 512-bit AVX-512 F/BW/VL and VNNI (VPDPBUSD) Go assembly.
	AVX512VNNI
)

// KernelsEnv names the environment variable that forces a level.
const KernelsEnv = "OMNI_KERNELS"

// String returns the level's name as accepted by ParseLevel.
func (l Level) String() string {
	switch l {
	case Generic:
		return "generic"
	case AVX2:
		return "avx2"
	case AVX512VNNI:
		return "avx512vnni"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Levels lists every level from slowest to fastest.
func Levels() []Level { return []Level{Generic, AVX2, AVX512VNNI} }

// ParseLevel maps a name ("generic", "avx2", "avx512vnni") to a Level.
func ParseLevel(s string) (Level, error) {
	for _, l := range Levels() {
		if strings.EqualFold(s, l.String()) {
			return l, nil
		}
	}
	return Generic, fmt.Errorf("simd: unknown kernel level %q (want generic, avx2 or avx512vnni)", s)
}

// Supported reports whether this CPU (and this build) can run level l.
func Supported(l Level) bool {
	switch l {
	case Generic:
		return true
	case AVX2:
		return haveAsm && cpu.X86.HasAVX2 && cpu.X86.HasFMA
	case AVX512VNNI:
		return haveAsm && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW &&
			cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX2 && cpu.X86.HasFMA
	}
	return false
}

// Best returns the fastest level this CPU supports.
func Best() Level {
	for i := len(Levels()) - 1; i >= 0; i-- {
		if l := Levels()[i]; Supported(l) {
			return l
		}
	}
	return Generic
}

// active is the level every dispatching kernel uses. It is set once at
// start-up (Init) and by the test hook Use; it is never changed inside a pass.
var active = Best()

// Active returns the level in use.
func Active() Level { return active }

// Use forces level l and returns a func that restores the previous level:
//
//	defer simd.Use(simd.Generic)()
//
// It panics when l is not supported here: tests must not silently run a
// different level than the one they name.
func Use(l Level) (restore func()) {
	if !Supported(l) {
		panic("omni: BUG: simd.Use(" + l.String() + ") on a CPU without it")
	}
	prev := active
	active = l
	return func() { active = prev }
}

// Select makes level l active, refusing a level this CPU lacks with an error.
func Select(l Level) error {
	if !Supported(l) {
		return fmt.Errorf("simd: kernel level %s is not supported by this CPU (best is %s)", l, Best())
	}
	active = l
	return nil
}

// InitFromEnv applies OMNI_KERNELS when it is set (an error when the level
// is unknown or unsupported) and returns the level in use.
func InitFromEnv() (Level, error) {
	v := os.Getenv(KernelsEnv)
	if v == "" {
		return active, nil
	}
	l, err := ParseLevel(v)
	if err != nil {
		return active, fmt.Errorf("%s: %w", KernelsEnv, err)
	}
	if err := Select(l); err != nil {
		return active, fmt.Errorf("%s=%s: %w", KernelsEnv, v, err)
	}
	return l, nil
}
