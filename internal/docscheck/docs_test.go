package docscheck

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/omni-tts/omni/internal/portable"
)

const module = "github.com/omni-tts/omni/"

// goImports returns, for every package of the module, its direct non-test
// imports within the module (module-relative).
func goImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		m[pkg] = nil
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				m[pkg] = append(m[pkg], rel)
			}
		}
	}
	return m
}

// inTree reports whether pkg is root or one of its subpackages.
func inTree(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// TestArchitectureImportColumn checks every row of docs/ARCHITECTURE.md's
// package table: its "imports (omni)" column must name exactly the omni
// packages the row's package and its subpackages import outside their own
// tree (a parenthesis after the names lists outside modules and is not
// checked; "everything" is not checked).
func TestArchitectureImportColumn(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	imports := goImports(t)
	row := regexp.MustCompile("^\\| `([a-z/]+)` \\|.*\\| ([^|]*) \\|$")
	rows := 0
	var listed []string // every row's package: a subpackage with its own row is checked there
	for _, line := range strings.Split(string(doc), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			listed = append(listed, m[1])
		}
	}
	for _, line := range strings.Split(string(doc), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		pkg, col := m[1], strings.TrimSpace(m[2])
		if col == "everything" {
			continue
		}
		col, _, _ = strings.Cut(col, "(")
		var said []string
		for _, name := range strings.Split(col, ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			if name != "" && name != "—" {
				said = append(said, name)
			}
		}
		if _, ok := imports[pkg]; !ok {
			t.Errorf("ARCHITECTURE.md lists package %s, which go list does not know", pkg)
			continue
		}
		var got []string
		for p, imps := range imports {
			if !inTree(p, pkg) || ownRow(p, pkg, listed) {
				continue
			}
			for _, imp := range imps {
				if !inTree(imp, pkg) && !slices.Contains(got, imp) {
					got = append(got, imp)
				}
			}
		}
		slices.Sort(got)
		slices.Sort(said)
		if !slices.Equal(got, said) {
			t.Errorf("ARCHITECTURE.md row %s: imports (omni) say %q, go list says %q", pkg, said, got)
		}
	}
	if rows < 15 {
		t.Fatalf("found %d package rows in ARCHITECTURE.md; has the table's layout changed?", rows)
	}
}

// portableIn returns the package names of the first backticked,
// space-separated list on the line of doc that contains marker.
func portableIn(t *testing.T, path, marker string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\n", " ")
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("%s has no %q", path, marker)
	}
	m := regexp.MustCompile("`([a-z /]+)`").FindStringSubmatch(text[i:])
	if m == nil {
		t.Fatalf("%s: no `…` package list after %q", path, marker)
	}
	names := strings.Fields(m[1])
	slices.Sort(names)
	return names
}

// TestPortableListsAgree checks that README.md and docs/ARCHITECTURE.md
// name the portable packages internal/portable lists (which CI and the
// Taskfile build for wasip1).
func TestPortableListsAgree(t *testing.T) {
	want := portable.Packages()
	for _, c := range []struct{ path, marker string }{
		{"../../README.md", "regenerate after changing any portable"},
		{"../../docs/ARCHITECTURE.md", "The portable set"},
	} {
		if got := portableIn(t, c.path, c.marker); !slices.Equal(got, want) {
			t.Errorf("%s lists the portable packages %q, internal/portable %q", c.path, got, want)
		}
	}
}

// ownRow reports whether p, in pkg's tree, lies in the tree of another
// listed package below pkg (a subpackage with its own row, e.g.
// serve/engine under serve).
func ownRow(p, pkg string, listed []string) bool {
	for _, r := range listed {
		if r != pkg && inTree(r, pkg) && inTree(p, r) {
			return true
		}
	}
	return false
}
