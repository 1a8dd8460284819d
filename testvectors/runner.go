package testvectors

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Status is the outcome of one case.
type Status string

// The outcomes of a case.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Options select which cases a run replays.
type Options struct {
	// Kind, when set, restricts the run to cases of that kind. Cases that
	// cannot be parsed (or name an unknown kind) fail whatever the filter.
	Kind string
}

// Result is the outcome of one case.
type Result struct {
	Name     string        `json:"name"`              // case name (the file name if the case has none)
	Kind     string        `json:"kind,omitempty"`    // case kind
	File     string        `json:"file"`              // case file
	Status   Status        `json:"status"`            // pass, fail or skip
	Message  string        `json:"message,omitempty"` // what differed, or why skipped
	Duration time.Duration `json:"duration_ns"`       // handler time
}

// Report is the outcome of a run.
type Report struct {
	Results []Result `json:"results"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
}

// Summary is the closing line: "N passed, N failed" plus ", N skipped" when
// some case was skipped.
func (r *Report) Summary() string {
	s := fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
	if r.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", r.Skipped)
	}
	return s
}

// WriteText prints one line per failing case ("FAIL name: ..."), one per
// skipped case ("SKIP name: ..."), then the summary line.
func (r *Report) WriteText(w io.Writer) error {
	for _, res := range r.Results {
		switch res.Status {
		case Fail:
			if _, err := fmt.Fprintf(w, "FAIL %s: %s\n", res.Name, res.Message); err != nil {
				return err
			}
		case Skip:
			if _, err := fmt.Fprintf(w, "SKIP %s: %s\n", res.Name, res.Message); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

// WriteJSON prints the report as one indented JSON object with a "summary"
// field holding the closing line.
func (r *Report) WriteJSON(w io.Writer) error {
	out := struct {
		*Report
		Summary string `json:"summary"`
	}{r, r.Summary()}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(out)
}

// Run replays every case under dirs (each a suite directory or a single case
// file) and returns the report. An error is returned only when a directory
// cannot be read or holds no case at all; a malformed case is a failed
// result naming its file and field.
func Run(dirs []string, opt Options, env *Env) (*Report, error) {
	if env == nil {
		env = &Env{}
	}
	if opt.Kind != "" {
		if _, ok := handler(opt.Kind); !ok {
			return nil, fmt.Errorf("testvectors: unknown kind %q (known: %s)", opt.Kind, strings.Join(Kinds(), ", "))
		}
	}
	var files []string
	for _, d := range dirs {
		f, err := caseFiles(d)
		if err != nil {
			return nil, err
		}
		if len(f) == 0 {
			return nil, fmt.Errorf("testvectors: %s: no cases (*.json)", d)
		}
		files = append(files, f...)
	}
	rep := &Report{}
	seen := map[string]string{}
	for _, path := range files {
		res, ok := runFile(path, opt, env, seen)
		if !ok {
			continue
		}
		rep.Results = append(rep.Results, res)
		switch res.Status {
		case Pass:
			rep.Passed++
		case Fail:
			rep.Failed++
		case Skip:
			rep.Skipped++
		}
	}
	return rep, nil
}

// runFile parses and runs one case file; ok is false when the --kind filter
// excludes it.
func runFile(path string, opt Options, env *Env, seen map[string]string) (res Result, ok bool) {
	res = Result{Name: filepath.Base(path), File: path, Status: Fail}
	data, err := os.ReadFile(path)
	if err != nil {
		res.Message = fmt.Sprintf("testvectors: %v", err)
		return res, true
	}
	c, err := parseCase(path, data)
	if c.Name != "" {
		res.Name = c.Name
	}
	res.Kind = c.Kind
	if err != nil {
		res.Message = err.Error()
		return res, true
	}
	h, known := handler(c.Kind)
	if !known {
		res.Message = c.Errorf("kind", "unknown kind %q", c.Kind).Error()
		return res, true
	}
	if opt.Kind != "" && c.Kind != opt.Kind {
		return res, false
	}
	if prev, dup := seen[c.Name]; dup {
		res.Message = c.Errorf("name", "duplicate name %q (also in %s)", c.Name, prev).Error()
		return res, true
	}
	seen[c.Name] = path
	start := time.Now()
	err = runHandler(h, c, env)
	res.Duration = time.Since(start)
	c.close()
	var skip *SkipError
	switch {
	case err == nil:
		res.Status = Pass
	case errors.As(err, &skip):
		res.Status = Skip
		res.Message = skip.Reason
	default:
		res.Message = err.Error()
	}
	return res, true
}

// runHandler runs h, turning a panic (a bug, never expected) into a failure
// so one broken case cannot stop the suite.
func runHandler(h Handler, c *Case, env *Env) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("testvectors: BUG: handler panicked: %v", r)
		}
	}()
	return h(c, env)
}

// caseFiles lists the *.json case files under root in lexical order,
// skipping model directories (those holding model.safetensors). root may
// also be a single case file.
func caseFiles(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("testvectors: %w", err)
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if isModelDir(p) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".json") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("testvectors: walk %s: %w", root, err)
	}
	sort.Strings(out)
	return out, nil
}

// isModelDir reports whether dir is a model or tokenizer directory, not
// searched for cases: it holds model.safetensors, or (a config-only model,
// a tokenizer) config.json, vocab.json or tokenizer.json.
func isModelDir(dir string) bool {
	for _, f := range []string{"model.safetensors", "config.json", "vocab.json", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}
