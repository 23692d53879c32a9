package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigIncludes(t *testing.T) {
	t.Parallel()
	data := `# a comment
[user]
	name = x
	path = not-an-include
[include]
	path = ../.gitconfig
	PATH = "quoted file" ; a comment
[includeIf "gitdir:~/work/"]
	path = ~/work.inc # comment
[IncludeIf "onbranch:main"] path = inline
[core]
	pager = less
[include]
	path = a\
b
	other = x
`
	want := []string{"../.gitconfig", "quoted file", "~/work.inc", "inline", "ab"}
	if diff := cmp.Diff(want, configIncludes([]byte(data))); diff != "" {
		t.Errorf("configIncludes (-want +got):\n%s", diff)
	}
}

// TestGitConfigInProject builds a home directory outside the project whose
// git configuration includes files, and checks which are found.
func TestGitConfigInProject(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "proj")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{root, home, filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root = r.Root()
	tests := []struct {
		name     string
		global   string // ~/.gitconfig
		other    string // ~/other.inc
		local    string // .git/config
		env      map[string]string
		wantFile string
		wantFrom string
		reason   string
	}{
		{name: "no includes", global: "[user]\n\tname = x\n"},
		{name: "include of a project file", global: "[include]\n\tpath = " + filepath.Join(root, ".gitconfig") + "\n",
			wantFile: filepath.Join(root, ".gitconfig"), wantFrom: filepath.Join(home, ".gitconfig")},
		{name: "relative include", global: "[include]\n\tpath = ../proj/sub/inc\n",
			wantFile: filepath.Join(root, "sub", "inc"), wantFrom: filepath.Join(home, ".gitconfig")},
		{name: "nested include", global: "[include]\n\tpath = ~/other.inc\n", other: "[includeIf \"gitdir:/x/\"]\n\tpath = ../proj/x.cfg\n",
			wantFile: filepath.Join(root, "x.cfg"), wantFrom: filepath.Join(home, "other.inc")},
		{name: "include in the repository config", local: "[include]\n\tpath = ../.gitconfig\n",
			wantFile: filepath.Join(root, ".gitconfig"), wantFrom: filepath.Join(root, ".git", "config")},
		{name: "include of a protected file is fine", local: "[include]\n\tpath = extra.cfg\n", reason: "inside .git/, which no command writes"},
		{name: "include outside the project is fine", global: "[include]\n\tpath = ~/other.inc\n", other: "[user]\n\tname = y\n"},
		{name: "global config inside the project", env: map[string]string{"GIT_CONFIG_GLOBAL": filepath.Join(root, "g.cfg")},
			wantFile: filepath.Join(root, "g.cfg")},
		{name: "GIT_CONFIG_GLOBAL replaces the home files", global: "[include]\n\tpath = ../proj/x\n",
			env: map[string]string{"GIT_CONFIG_GLOBAL": os.DevNull}},
		{name: "XDG config", env: map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "xdg")},
			wantFile: filepath.Join(root, "xdg", "git", "config"), reason: "a missing file inside the project can be created"},
		{name: "include loop ends", global: "[include]\n\tpath = ~/.gitconfig\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the cases share the home directory.
			write(filepath.Join(home, ".gitconfig"), tt.global)
			write(filepath.Join(home, "other.inc"), tt.other)
			write(filepath.Join(root, ".git", "config"), tt.local)
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
			for k, v := range tt.env {
				env[k] = v
			}
			r.Reset()
			file, from := gitConfigInProject(r, func(k string) string { return env[k] })
			if diff := cmp.Diff([2]string{tt.wantFile, tt.wantFrom}, [2]string{file, from}); diff != "" {
				t.Errorf("gitConfigInProject (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTextconvDriver: git status -v is allowed only when no textconv
// driver is configured in any file git reads for the project, included
// files too, nor possibly in the environment.
func TestTextconvDriver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	global := filepath.Join(home, "gitconfig")
	write(global, "[user]\n\tname = x\n[diff]\n\tcolorMoved = zebra\n")
	base := map[string]string{"HOME": home, "GIT_CONFIG_GLOBAL": global}
	if got := textconvDriver(r, env(base)); got != "" {
		t.Errorf("no driver: got %q", got)
	}
	write(global, "[diff \"pdf\"]\n\ttextconv = pdftotext\n")
	if got := textconvDriver(r, env(base)); !strings.Contains(got, "diff.pdf.textconv") {
		t.Errorf("global driver: got %q", got)
	}
	inc := filepath.Join(home, "inc")
	write(inc, "[diff.img]\n  TextConv = exif\n")
	write(global, "[include]\n\tpath = "+inc+"\n")
	if got := textconvDriver(r, env(base)); !strings.Contains(got, "textconv") {
		t.Errorf("included driver: got %q", got)
	}
	write(global, "")
	write(filepath.Join(root, ".git", "config"), "[core]\n\tbare = false\n[diff \"x\"]\n\ttextconv = cat\n")
	if got := textconvDriver(r, env(base)); !strings.Contains(got, "diff.x.textconv") {
		t.Errorf("repository driver: got %q", got)
	}
	write(filepath.Join(root, ".git", "config"), "")
	withEnv := map[string]string{"HOME": home, "GIT_CONFIG_GLOBAL": global, "GIT_CONFIG_COUNT": "1"}
	if got := textconvDriver(r, env(withEnv)); got == "" {
		t.Error("GIT_CONFIG_COUNT: want a driver reported")
	}
}
