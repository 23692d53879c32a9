package specs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestResolverWindowsVolumes runs on Windows only: volumes, both
// separators, rooted paths and UNC paths, with the real file system.
func TestResolverWindowsVolumes(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	if !r.windows {
		t.Fatal("the Windows path rules are off on Windows")
	}
	base := r.Root()
	vol := filepath.VolumeName(base)
	slashed := strings.ReplaceAll(base, `\`, "/")
	for _, p := range []string{"a.txt", "sub/a.txt", `sub\a.txt`, base + `\a.txt`, slashed + "/sub/a.txt", `sub/..\a.txt`} {
		res, err := r.Confine(base, p, true)
		if err != nil {
			t.Errorf("Confine(%q) = %v, want allowed", p, err)
			continue
		}
		if !strings.HasPrefix(res, base) {
			t.Errorf("Confine(%q) = %q, not under %q", p, res, base)
		}
	}
	other := "Z:"
	if strings.EqualFold(vol, "Z:") {
		other = "Y:"
	}
	for p, rule := range map[string]rules.Rule{
		`sub/../../x`:              rules.PathOutsideRoot,
		`sub\..\..\x`:              rules.PathOutsideRoot,
		vol + `\Windows\win.ini`:   rules.PathOutsideRoot,
		other + `\x`:               rules.PathOutsideRoot,
		vol + "x":                  rules.PathOutsideRoot,
		`\Windows\win.ini`:         rules.PathOutsideRoot,
		"/Windows/win.ini":         rules.PathOutsideRoot,
		`\\clada-no-such-host\s\x`: rules.PathOutsideRoot,
		"//clada-no-such-host/s/x": rules.PathOutsideRoot,
		`\\?\` + base + `\a.txt`:   rules.PathOutsideRoot,
		"sub/.GIT/config":          rules.ProtectedPath,
		"sub/.git./config":         rules.PathOutsideRoot,
		"GIT~1":                    rules.PathOutsideRoot,
		"a.txt:secret":             rules.PathOutsideRoot,
		"CON":                      rules.PathOutsideRoot,
	} {
		_, err := r.Confine(base, p, true)
		var de *rules.Denied
		if !errors.As(err, &de) || de.Rule != rule {
			t.Errorf("Confine(%q, write) = %v, want rule %s", p, err, rule)
		}
	}
	// A UNC path is refused before any lookup: nothing was cached for it.
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.nodes {
		if strings.HasPrefix(k, `\\`) {
			t.Errorf("looked up %s while deciding", k)
		}
	}
}
