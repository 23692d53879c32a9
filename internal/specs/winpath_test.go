package specs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestWindowsPath checks the Windows path rules on their text alone: they
// hold on Windows and under --os windows everywhere.
func TestWindowsPath(t *testing.T) {
	t.Parallel()
	ok := map[string]string{
		"a.txt":          "a.txt",
		`sub\a.txt`:      "sub/a.txt",
		`sub/..\a.txt`:   "sub/../a.txt",
		"dir/sub/":       "dir/sub/",
		`C:\proj\a.txt`:  "C:/proj/a.txt",
		"c:/proj/a.txt":  "c:/proj/a.txt",
		"a~b.txt":        "a~b.txt",
		"backup~":        "backup~",
		"version~1.2.3":  "version~1.2.3",
		"CONFIG":         "CONFIG",
		"console.log":    "console.log",
		"nul-terminated": "nul-terminated",
		".gitignore":     ".gitignore",
		"..":             "..",
	}
	for in, want := range ok {
		got, err := windowsPath(in)
		if err != nil || got != want {
			t.Errorf("windowsPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	denied := []string{
		`\\host\share\x`, "//host/share/x", `\\?\C:\x`, `\\.\PhysicalDrive0`, "//./pipe/x",
		"C:x", "c:a.txt", "D:",
		".git.", ".git ", ".git...", "sub/.git./config", ".clada .", "a.",
		"GIT~1", "git~1/config", "CLADA~2", "PROGRA~1.TXT", "sub/GIT~12/hooks",
		".git::$INDEX_ALLOCATION", ".git::$INDEX_ALLOCATION/config", "a.txt:stream", "a.txt:stream:$DATA", "sub/x:y",
		"CON", "con", "NUL.txt", "sub/aux.c", "COM1", "lpt9.log", "CONIN$", "COM¹", "NUL .txt",
		"a<b", "a>b", `a"b`, "a|b", "a?b", "a*b",
	}
	for _, in := range denied {
		got, err := windowsPath(in)
		if err == nil {
			t.Errorf("windowsPath(%q) = %q, want a denial", in, got)
			continue
		}
		if err.Rule != rules.PathOutsideRoot || err.Word != in || err.Reason == "" || err.Advice == "" {
			t.Errorf("windowsPath(%q): %+v", in, err)
		}
	}
}

// TestResolverForWindows confines paths under the Windows rules in a real
// directory: both separators, .. applied, lookalikes of .git refused,
// .git matched in any case.
func TestResolverForWindows(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"sub/deep", ".git", "src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	r.ForWindows(true)
	base := r.Root()
	for _, p := range []string{"a.txt", `sub\a.txt`, "sub/deep/../a.txt", `sub\deep\..\..\a.txt`} {
		if _, err := r.Confine(base, p, true); err != nil {
			t.Errorf("Confine(%q, write) = %v, want allowed", p, err)
		}
	}
	for p, rule := range map[string]rules.Rule{
		"sub/../../x":    rules.PathOutsideRoot,
		`sub\..\..\x`:    rules.PathOutsideRoot,
		`..\x`:           rules.PathOutsideRoot,
		`\\host\share\x`: rules.PathOutsideRoot,
		".git.":          rules.PathOutsideRoot,
		".git /config":   rules.PathOutsideRoot,
		"GIT~1/config":   rules.PathOutsideRoot,
		".git::$INDEX_ALLOCATION/hooks/pre-commit": rules.PathOutsideRoot,
		"NUL":                rules.PathOutsideRoot,
		`.GIT\hooks\x`:       rules.ProtectedPath,
		`sub\..\.git\config`: rules.ProtectedPath,
	} {
		_, err := r.Confine(base, p, true)
		var de *rules.Denied
		if !errors.As(err, &de) || de.Rule != rule {
			t.Errorf("Confine(%q, write) = %v, want rule %s", p, err, rule)
		}
	}
	// Off, outside Windows, the same words are ordinary POSIX names.
	if runtime.GOOS != "windows" {
		r2, _ := NewResolver(root)
		for _, p := range []string{".git.", "GIT~1", "a.txt:stream", `sub\..\..\x`} {
			if _, err := r2.Confine(base, p, true); err != nil {
				t.Errorf("POSIX rules: Confine(%q) = %v, want allowed", p, err)
			}
		}
	}
}

// TestResolverForWindowsLinkThenDotDot: Windows applies .. before links,
// clada after them; a path whose readings differ is refused.
func TestResolverForWindowsLinkThenDotDot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"dir/sub", "src/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join("..", "..", "src", "sub"), filepath.Join(root, "dir", "sub", "jump")); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Confine(r.Root(), "dir/sub/jump/../a.txt", false); err != nil {
		t.Fatalf("POSIX rules: %v", err)
	}
	r.ForWindows(true)
	_, err = r.Confine(r.Root(), "dir/sub/jump/../a.txt", false)
	var de *rules.Denied
	if !errors.As(err, &de) || de.Rule != rules.PathOutsideRoot {
		t.Errorf("Windows rules: Confine(link/../a.txt) = %v, want path-outside-root (the readings differ)", err)
	}
}
