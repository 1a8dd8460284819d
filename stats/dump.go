package stats

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Dump is one process's statistics file in the original system's layout.
// Times are seconds since the Unix epoch.
type Dump struct {
	Role      string             `json:"role"`
	PID       int                `json:"pid"`
	StartedAt float64            `json:"started_at"`
	DumpedAt  float64            `json:"dumped_at"`
	Counters  map[string]Summary `json:"counters"`
}

// DumpPath is <dir>/<role>_<pid>.json.
func DumpPath(dir, role string, pid int) string {
	return filepath.Join(dir, role+"_"+strconv.Itoa(pid)+".json")
}

// WriteDump writes d to path atomically: it writes path + ".tmp" and renames
// it over path, so a reader (or a crash at any moment) sees either the
// previous complete file or the new one, never a torn one.
func WriteDump(path string, d Dump) error {
	if d.Counters == nil {
		d.Counters = map[string]Summary{}
	}
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return fmt.Errorf("stats: encode dump %s: %w", path, err)
	}
	b = append(b, '\n')
	return writeFileAtomic(path, b, writeAll)
}

// writeAll writes b to f.
func writeAll(f *os.File, b []byte) error {
	_, err := f.Write(b)
	return err
}

// writeFileAtomic writes b to path + ".tmp" with write, then renames it over
// path.
func writeFileAtomic(path string, b []byte, write func(*os.File, []byte) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("stats: write %s: %w", tmp, err)
	}
	err = write(f, b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("stats: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("stats: rename %s: %w", tmp, err)
	}
	return nil
}

// ReadDump reads one dump file. A missing role is taken from the file name
// (its stem), as the original's merge does.
func ReadDump(path string) (Dump, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Dump{}, fmt.Errorf("stats: read dump: %w", err)
	}
	var d Dump
	if err := json.Unmarshal(b, &d); err != nil {
		return Dump{}, fmt.Errorf("stats: dump %s: %w", path, err)
	}
	if d.Role == "" {
		base := filepath.Base(path)
		d.Role = base[:len(base)-len(filepath.Ext(base))]
	}
	return d, nil
}
