package voice

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DirEnv names the environment variable that overrides the default
// library directory.
const DirEnv = "OMNI_VOICE_DIR"

// DefaultDir returns the library directory: $OMNI_VOICE_DIR when set, else
// $XDG_DATA_HOME/omni/voices, else ~/.local/share/omni/voices.
func DefaultDir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "omni", "voices"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("voice: no library directory: set %s or XDG_DATA_HOME (%w)", DirEnv, err)
	}
	return filepath.Join(home, ".local", "share", "omni", "voices"), nil
}

// Library is a directory of voice files, NAME.voice each. Writes are
// atomic (a temporary file renamed into place), so a reader never sees a
// half-written voice; the directory is created on the first Add. A voice
// is a likeness of a person: the directory is made private (0700) and the
// files are written private (0600) to their user.
type Library struct {
	dir string
}

// NewLibrary returns the library in dir ("" means DefaultDir).
func NewLibrary(dir string) (*Library, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return &Library{dir: dir}, nil
}

// Dir returns the library's directory.
func (l *Library) Dir() string { return l.dir }

// Path returns the file of voice name (which must be ValidName).
func (l *Library) Path(name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	return filepath.Join(l.dir, name+Ext), nil
}

// Add stores v under v.Name (Validate first). An existing voice of that
// name is refused (ErrExists) unless replace is set.
func (l *Library) Add(v *Voice, replace bool) error {
	path, err := l.Path(v.Name)
	if err != nil {
		return err
	}
	b, err := Encode(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("voice: library %s: %w", l.dir, err)
	}
	tmp, err := os.CreateTemp(l.dir, "."+v.Name+".tmp*")
	if err != nil {
		return fmt.Errorf("voice: add %q: %w", v.Name, err)
	}
	defer os.Remove(tmp.Name()) // after a rename or link: nothing, or the temporary's second name
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("voice: add %q: %w", v.Name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("voice: add %q: %w", v.Name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("voice: add %q: %w", v.Name, err)
	}
	if replace {
		if err := os.Rename(tmp.Name(), path); err != nil {
			return fmt.Errorf("voice: add %q: %w", v.Name, err)
		}
		return nil
	}
	// a hard link fails when the name exists: no window where two adds of
	// one name both succeed
	err = os.Link(tmp.Name(), path)
	if err == nil {
		return nil
	}
	exists := errors.Is(err, fs.ErrExist)
	if !exists { // a file system without hard links: check, then rename
		_, serr := os.Lstat(path)
		exists = serr == nil
		if !exists {
			if err := os.Rename(tmp.Name(), path); err != nil {
				return fmt.Errorf("voice: add %q: %w", v.Name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: %q in %s (remove it first, or replace it)", ErrExists, v.Name, l.dir)
}

// Get loads voice name, checked as Decode checks it; a file that holds
// another name is refused too. A missing voice wraps ErrNotFound.
func (l *Library) Get(name string) (*Voice, error) {
	path, err := l.Path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w %q in %s (omni voice ls lists them)", ErrNotFound, name, l.dir)
		}
		return nil, fmt.Errorf("voice: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("voice: read %s: %w", path, err)
	}
	v, err := Decode(path, b)
	if err != nil {
		return nil, err
	}
	if v.Name != name {
		return nil, fmt.Errorf("%w: %s: holds voice %q, not %q", ErrCorrupt, path, v.Name, name)
	}
	return v, nil
}

// List returns the names of the library's voices, sorted (files named
// NAME.voice with a valid NAME; their content is checked by Get). A
// library directory that does not exist yet is empty.
func (l *Library) List() ([]string, error) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("voice: library %s: %w", l.dir, err)
	}
	var names []string
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), Ext)
		if !ok || !e.Type().IsRegular() || ValidName(name) != nil {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// Remove deletes voice name; a missing voice wraps ErrNotFound.
func (l *Library) Remove(name string) error {
	path, err := l.Path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w %q in %s", ErrNotFound, name, l.dir)
		}
		return fmt.Errorf("voice: remove %q: %w", name, err)
	}
	return nil
}
