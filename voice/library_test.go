package voice

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func testVoice(name string) *Voice {
	return &Voice{Name: name, Model: Model{Hidden: 2, Digest: testDigest, Spec: "synth:tiny-base"},
		XVector: []float32{1.5, -0.25}, RefCodes: make([]int32, 32), RefText: "Hi.", RefSeconds: 0.16,
		Created: time.Date(2026, 12, 6, 11, 0, 0, 0, time.UTC)}
}

// TestLibrary adds, lists, gets, replaces and removes voices in a
// directory, and checks the files and refusals.
func TestLibrary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "voices") // created by the first Add
	l, err := NewLibrary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if names, err := l.List(); err != nil || len(names) != 0 {
		t.Fatalf("empty library: %v, %v", names, err)
	}
	for _, n := range []string{"zed", "amy"} {
		if err := l.Add(testVoice(n), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Add(testVoice("amy"), false); !errors.Is(err, ErrExists) {
		t.Errorf("second add of amy: %v", err)
	}
	xv := testVoice("amy")
	xv.RefCodes, xv.RefText = nil, ""
	if err := l.Add(xv, true); err != nil {
		t.Fatal(err)
	}
	names, err := l.List()
	if err != nil || !slices.Equal(names, []string{"amy", "zed"}) {
		t.Errorf("List = %v, %v", names, err)
	}
	got, err := l.Get("amy")
	if err != nil {
		t.Fatal(err)
	}
	if got.InContext() || got.Clone().RefCodes != nil {
		t.Errorf("replaced amy is in context: %+v", got)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".voice") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if _, err := l.Get("bob"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get bob: %v", err)
	}
	if _, err := l.Get("../amy"); !errors.Is(err, ErrName) {
		t.Errorf("Get ../amy: %v", err)
	}
	// a file renamed by hand holds another name: refused by name
	b, _ := os.ReadFile(filepath.Join(dir, "zed.voice"))
	os.WriteFile(filepath.Join(dir, "zoe.voice"), b, 0o644)
	if _, err := l.Get("zoe"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `holds voice "zed"`) {
		t.Errorf("Get zoe: %v", err)
	}
	// a damaged file: refused naming its path
	b[len(b)/2] ^= 0xff
	os.WriteFile(filepath.Join(dir, "zed.voice"), b, 0o644)
	if _, err := l.Get("zed"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), filepath.Join(dir, "zed.voice")) {
		t.Errorf("Get damaged zed: %v", err)
	}
	if err := l.Remove("zed"); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove("zed"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second remove: %v", err)
	}
	if err := l.Add(&Voice{Name: "bad"}, false); err == nil {
		t.Error("added an invalid voice")
	}
}

// TestDefaultDir checks the directory's precedence: $OMNI_VOICE_DIR, then
// $XDG_DATA_HOME/omni/voices, then ~/.local/share/omni/voices.
func TestDefaultDir(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv(DirEnv, "")
	for _, c := range []struct{ env, xdg, want string }{
		{"", "", "/home/u/.local/share/omni/voices"},
		{"", "/data", "/data/omni/voices"},
		{"", "relative", "/home/u/.local/share/omni/voices"}, // XDG says relative paths are ignored
		{"/v", "/data", "/v"},
	} {
		t.Setenv(DirEnv, c.env)
		t.Setenv("XDG_DATA_HOME", c.xdg)
		got, err := DefaultDir()
		if err != nil || got != c.want {
			t.Errorf("OMNI_VOICE_DIR %q XDG_DATA_HOME %q: %q, %v; want %q", c.env, c.xdg, got, err, c.want)
		}
	}
}

// TestCheckModel refuses a voice on another model, naming both.
func TestCheckModel(t *testing.T) {
	v := testVoice("me")
	if err := v.CheckModel(Model{Hidden: 2, Digest: testDigest, Spec: "/elsewhere"}); err != nil {
		t.Errorf("same weights under another spec: %v", err)
	}
	other := Model{Hidden: 2, Digest: strings.Repeat("f", 64), Spec: "synth:tiny-base@2"}
	err := v.CheckModel(other)
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), `voice "me" was prepared for synth:tiny-base`) || !strings.Contains(err.Error(), "synth:tiny-base@2") {
		t.Errorf("other model: %v", err)
	}
}
