package deploy

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/omni-tts/omni/sched"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// EnvCacheDir overrides the calibration cache's root directory.
const EnvCacheDir = "OMNI_CACHE_DIR"

// DefaultCacheDir is $OMNI_CACHE_DIR, else <user cache dir>/omni.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("deploy: no cache directory (set %s): %w", EnvCacheDir, err)
	}
	return filepath.Join(d, "omni"), nil
}

// Fingerprint keys a calibration by the machine and the model: the first 16
// hex digits of the SHA-1 of a JSON object holding the hardware class, CPU
// model and signature (family, model and stepping: a VM's brand string may
// read "AMD EPYC" on a Zen 4 and a Zen 5 alike), sorted CPU flags, GPU
// name, GPU memory in 256 MiB units, physical cores and the model name.
func Fingerprint(h HardwareProfile, model string) string {
	flags := slices.Clone(h.CPUFlags)
	slices.Sort(flags)
	key := map[string]any{
		"class":          string(h.Class()),
		"cpu_model":      h.CPUModel,
		"cpu_signature":  h.CPUSignature,
		"cpu_flags":      flags,
		"gpu_name":       h.GPUName,
		"gpu_mem_256mib": h.GPUMemBytes / (256 * MiB),
		"physical_cores": h.NPhysical,
		"model":          model,
	}
	b, _ := json.Marshal(key) // a map of plain values always encodes
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])[:16]
}

// CalibrationPath is <cacheDir>/calibration/<fingerprint>.json.
func CalibrationPath(cacheDir, fingerprint string) string {
	return filepath.Join(cacheDir, "calibration", fingerprint+".json")
}

// SaveCalibration stores c under the fingerprint, atomically.
func SaveCalibration(cacheDir, fingerprint string, c sched.Calibration) error {
	path := CalibrationPath(cacheDir, fingerprint)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("deploy: calibration cache: %w", err)
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return fmt.Errorf("deploy: encode calibration: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("deploy: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("deploy: rename %s: %w", tmp, err)
	}
	return nil
}

// LoadCalibration reads the calibration stored under the fingerprint; found
// is false (with no error) when there is none.
func LoadCalibration(cacheDir, fingerprint string) (c sched.Calibration, found bool, err error) {
	path := CalibrationPath(cacheDir, fingerprint)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sched.Calibration{}, false, nil
	}
	if err != nil {
		return sched.Calibration{}, false, fmt.Errorf("deploy: read calibration: %w", err)
	}
	if !jsonObject(b) {
		return sched.Calibration{}, false, fmt.Errorf("deploy: calibration %s: want a JSON object", path)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return sched.Calibration{}, false, fmt.Errorf("deploy: calibration %s: %w", path, err)
	}
	if c.MinFrames < 0 || c.MarginMS < 0 {
		return sched.Calibration{}, false, fmt.Errorf("deploy: calibration %s: min_frames %d / margin_ms %v is negative", path, c.MinFrames, c.MarginMS)
	}
	if len(c.Ramp) > 0 {
		if err := (sched.FixedRamp{Ramp: c.Ramp, ChunkFrames: c.Ramp[len(c.Ramp)-1]}).Validate(); err != nil {
			return sched.Calibration{}, false, fmt.Errorf("deploy: calibration %s: %w", path, err)
		}
	}
	return c, true, nil
}

// jsonObject reports whether b holds, past white space, a JSON object
// rather than null, a scalar or nothing (which json.Unmarshal into a
// struct accepts without a word).
func jsonObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{'
}
