package main

import (
	"errors"
	"fmt"
	"os"
)

// partialFile is an output file written as NAME.partial and renamed to
// NAME only when the command succeeds, so that NAME, when it exists, is
// always a whole answer (an earlier NAME stays until then):
//
//   - success: NAME.partial is renamed to NAME;
//   - failure (an error, a write that failed): NAME.partial is removed and
//     nothing is left;
//   - interrupted (SIGINT, SIGTERM): NAME.partial is kept, a valid file of
//     what was made so far (a WAV's sizes patched), and the error says so.
type partialFile struct {
	*os.File
	path string // NAME
}

// createPartial creates path + ".partial".
func createPartial(path string) (*partialFile, error) {
	f, err := os.Create(path + ".partial")
	if err != nil {
		return nil, err
	}
	return &partialFile{File: f, path: path}, nil
}

// finish closes the file and, after err (the command's error so far) and
// interrupted, renames, removes or keeps it; it returns err, or the error
// of closing or renaming.
func (p *partialFile) finish(err error, interrupted bool) error {
	tmp := p.File.Name()
	if cerr := p.File.Close(); err == nil {
		err = cerr
	}
	switch {
	case err == nil && !interrupted:
		if rerr := os.Rename(tmp, p.path); rerr != nil {
			os.Remove(tmp)
			return fmt.Errorf("write %s: %w", p.path, rerr)
		}
		return nil
	case err == nil:
		return nil // interrupted: the caller reports where the partial file is
	}
	if rerr := os.Remove(tmp); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}
