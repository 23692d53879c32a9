package specs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/rules"
)

func TestCheckGit(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	root := r.Root()
	tests := []struct {
		in   string
		want Outcome
		rule rules.Rule
	}{
		{"git status", Allow, rules.Spec},
		{"git log -n 5", Allow, rules.Spec},
		{"git diff --stat", Allow, rules.Spec},
		{"git log -- a.txt", Allow, rules.Spec},
		{"git log -- /etc/passwd", Deny, rules.PathOutsideRoot},
		{"git log -- ../x", Deny, rules.PathOutsideRoot},
		{"git push", Ask, rules.Rule(rules.GitSubcommand)},
		{"git -c core.pager=x log", Deny, rules.Rule(rules.GitOption)},
		{"git log --output=x", Deny, rules.Rule(rules.GitOption)},
		{"git branch -D x", Ask, rules.Rule(rules.GitSubcommand)},
		{"git shortlog -sn", Allow, rules.Spec},
		{"git grep -n x -- dir", Allow, rules.Spec},
		{"git grep -n x -- ../y", Deny, rules.PathOutsideRoot},
		{"git grep -f /etc/passwd", Deny, rules.PathOutsideRoot},
		{"git format-patch -o out -1", Allow, rules.Spec},
		{"git format-patch -o .git/x -1", Deny, rules.ProtectedPath},
		{"git format-patch -o gitlink -1", Deny, rules.ProtectedPath},
		{"git format-patch --output-directory=../x -1", Deny, rules.PathOutsideRoot},
		{"git format-patch --stdout -1", Allow, rules.Spec},
		{"git config --local --list", Allow, rules.Spec},
		{"git config --file /etc/gitconfig --list", Deny, rules.PathOutsideRoot},
		{"git config -f escape/x --list", Deny, rules.PathOutsideRoot},
		{"git config --get credential.helper", Ask, rules.Rule(rules.GitSubcommand)},
		{"git clean -n", Allow, rules.Spec},
		{"git clean -f", Ask, rules.Rule(rules.GitSubcommand)},
		{"git tag v2", Ask, rules.Rule(rules.GitSubcommand)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			argv, _ := splitExample(tt.in)
			got := s.Check(argv, root, r)
			if got.Rule == rules.NotFound {
				t.Fatalf("git not installed: %s", got.Reason)
			}
			type result struct {
				Outcome Outcome
				Rule    rules.Rule
			}
			if diff := cmp.Diff(result{tt.want, tt.rule}, result{got.Outcome, got.Rule}); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s%s", tt.in, diff, got.Reason)
			}
			if got.Outcome != Allow {
				return
			}
			want := append([]string{got.Exec[0]}, gitrules.Harden(argv[1:])...)
			if diff := cmp.Diff(want, got.Exec); diff != "" || !filepath.IsAbs(got.Exec[0]) {
				t.Errorf("Exec (-want +got):\n%s", diff)
			}
			wantEnv := append(gitrules.Env(), "GIT_DIR="+filepath.Join(root, ".git"), "GIT_WORK_TREE="+root,
				"GIT_CEILING_DIRECTORIES="+filepath.Dir(root))
			if diff := cmp.Diff(wantEnv, got.Env); diff != "" {
				t.Errorf("Env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckExec(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	got := s.Check([]string{"rg", "-n", "foo"}, r.Root(), r)
	if diff := cmp.Diff([]string{"/usr/bin/rg", "--no-config", "--no-ignore-parent", "-n", "foo"}, got.Exec); diff != "" {
		t.Errorf("rg Exec (-want +got):\n%s", diff)
	}
	s2 := testSet(t)
	s2.path["cat"] = lookResult{err: errNotFoundForTest}
	// A missing program is a fact, not a policy: still allowed, with the
	// bare name to run and a note.
	v := s2.Check([]string{"cat", "a.txt"}, r.Root(), r)
	if v.Outcome != Allow || v.Rule != rules.Spec || v.Missing != "`cat` is not installed here (not found)" || v.Exec[0] != "cat" {
		t.Errorf("missing program: %v %s %q %q", v.Outcome, v.Rule, v.Missing, v.Exec)
	}
}

var errNotFoundForTest = &rules.Denied{Reason: "not found"}

// TestGitNeverReadsAboveRoot: with the project inside a larger repository,
// git run as clada runs it finds no repository, so nothing above the root
// (here a committed file "secret" next to the project) can be read.
func TestGitNeverReadsAboveRoot(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is required: ", err)
	}
	outer := t.TempDir()
	run := gitRunner(git)
	proj := filepath.Join(outer, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outer, "secret"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "secret"}, {"commit", "-qm", "x"}} {
		if out, err := run(outer, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// Without the ceiling, git in proj reads the outer repository.
	if out, err := run(proj, nil, "show", "HEAD:secret"); err != nil || !strings.Contains(out, "top secret") {
		t.Fatalf("setup: git show from proj = %q, %v; want the outer secret", out, err)
	}
	root, err := filepath.EvalSymlinks(proj)
	if err != nil {
		t.Fatal(err)
	}
	ex, env := Command(git, []string{"git", "show", "HEAD:secret"}, root)
	out, err := run(proj, env, ex[1:]...)
	if err == nil || strings.Contains(out, "top secret") {
		t.Errorf("git run as clada runs it read above the root: %q, %v", out, err)
	}
}

// TestGitPinnedToRootRepository: a repository the model built in a
// subdirectory, whose config names a filter program for every file, is
// never used when git runs as clada runs it, so the program never runs.
func TestGitPinnedToRootRepository(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is required: ", err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "filter-ran")
	run := gitRunner(git)
	must := func(dir string, args ...string) {
		t.Helper()
		if out, err := run(dir, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	must(root, "init", "-q")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(root, "add", "a.txt")
	must(root, "commit", "-qm", "x")
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	must(sub, "init", "-q")
	must(sub, "config", "filter.x.clean", "touch "+marker+"; cat")
	for name, text := range map[string]string{".gitattributes": "* filter=x\n", "f.txt": "f\n"} {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must(sub, "add", "f.txt")
	must(sub, "commit", "-qm", "x")
	if err := os.WriteFile(filepath.Join(sub, "f.txt"), []byte("g\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without pinning, git status in sub runs the nested repository's filter.
	os.Remove(marker)
	if out, err := run(sub, []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(root)}, "status"); err != nil {
		t.Fatalf("setup: git status in sub: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("setup: the nested repository's filter did not run without pinning; the test proves nothing")
	}
	os.Remove(marker)
	ex, env := Command(git, []string{"git", "status"}, root)
	if out, err := run(sub, env, ex[1:]...); err != nil {
		t.Fatalf("git status as clada runs it: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git as clada runs it used the repository in sub/ and ran its filter")
	}
}

// gitRunner runs the real git in dir with extra environment, isolated from
// the machine's global configuration, with an identity for commits.
func gitRunner(git string) func(dir string, env []string, args ...string) (string, error) {
	return func(dir string, env []string, args ...string) (string, error) {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t",
			"GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// TestCheckGitWritesInDir: git format-patch without -o writes into the
// block's directory, which must not be inside .git/; a patch-named symlink
// there would be written through.
func TestCheckGitWritesInDir(t *testing.T) {
	t.Parallel()
	s := testSet(t)
	r, _ := newFixture(t)
	root := r.Root()
	argv := []string{"git", "format-patch", "-1"}
	if v := s.Check(argv, filepath.Join(root, ".git"), r); v.Outcome != Deny || v.Rule != rules.ProtectedPath {
		t.Errorf("format-patch in .git/ = %v %s, want deny protected-path", v.Outcome, v.Rule)
	}
	if v := s.Check(argv, filepath.Join(root, "dir"), r); v.Outcome != Allow {
		t.Errorf("format-patch in dir/ = %v %s: %s", v.Outcome, v.Rule, v.Reason)
	}
	if err := os.Symlink("../.git/hooks/post-checkout", filepath.Join(root, "dir", "0001-first.patch")); err != nil {
		t.Fatal(err)
	}
	r.Reset()
	v := s.Check(argv, filepath.Join(root, "dir"), r)
	if v.Outcome != Deny || v.Rule != rules.ProtectedPath {
		t.Errorf("format-patch into a directory with a patch-named symlink = %v %s, want deny protected-path", v.Outcome, v.Rule)
	}
	v = s.Check([]string{"git", "format-patch", "-o", "dir", "-1"}, root, r)
	if v.Outcome != Deny || v.Rule != rules.ProtectedPath {
		t.Errorf("format-patch -o dir with a patch-named symlink = %v %s, want deny protected-path", v.Outcome, v.Rule)
	}
}

func TestConfigCredential(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	home := t.TempDir()
	write := func(p, content string) {
		t.Helper()
		mustMkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Bob\n[Credential]\n\thelper = store\n[include]\n\tpath = ~/more.inc\n")
	write(filepath.Join(home, "more.inc"), "[http \"https://example.com/\"]\n\textraHeader = \"AUTHORIZATION: bearer x\" ; token\n")
	local := t.TempDir()
	lr, err := NewResolver(local)
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(lr.Root(), ".git", "config"), "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://ghp_tok@github.com/o/r.git\n[remote \"up\"]\n\turl = https://github.com/o/r.git\n")
	write(filepath.Join(lr.Root(), "clean.cfg"), "[alias]\n\tst = status\n")
	write(filepath.Join(lr.Root(), "bracket.cfg"), "[alias]\n\tst = status\n[remote \"o\"] url = https://ghp_tok@github.com/o/r]x.git\n")
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	tests := []struct {
		name string
		r    *Resolver
		cr   gitrules.ConfigRead
		want string // the entry found, "" for none
	}{
		{"list finds the global credential helper", lr, gitrules.ConfigRead{All: true}, "credential.helper"},
		{"names only hide values", lr, gitrules.ConfigRead{All: true, NamesOnly: true}, ""},
		{"local list finds the token URL", lr, gitrules.ConfigRead{All: true, Scope: "local"}, "remote.origin.url"},
		{"get of the token URL", lr, gitrules.ConfigRead{Names: []string{"Remote.origin.URL"}}, "remote.origin.url"},
		{"get of a clean URL", lr, gitrules.ConfigRead{Names: []string{"remote.up.url"}}, ""},
		{"regexp over remotes", lr, gitrules.ConfigRead{Regexps: []string{`^remote\..*\.url$`}}, "remote.origin.url"},
		{"regexp over user", lr, gitrules.ConfigRead{Regexps: []string{"^user"}}, ""},
		{"included extra header", lr, gitrules.ConfigRead{Regexps: []string{"^http"}}, "http.https://example.com/.extraheader"},
		{"bad regexp matches everything", lr, gitrules.ConfigRead{Regexps: []string{"("}}, "credential.helper"},
		{"global scope", lr, gitrules.ConfigRead{All: true, Scope: "global"}, "credential.helper"},
		{"a clean file", lr, gitrules.ConfigRead{All: true, Scope: "file", File: "clean.cfg"}, ""},
		{"a ] in a value after its header", lr, gitrules.ConfigRead{All: true, Scope: "file", File: "bracket.cfg"}, "remote.o.url"},
		{"fixture repository is clean locally", r, gitrules.ConfigRead{All: true, Scope: "local"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, why := configCredential(&tt.cr, tt.r.Root(), tt.r, getenv)
			if got != tt.want {
				t.Errorf("configCredential = %q (%s), want %q", got, why, tt.want)
			}
			if got != "" && why == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestParseGitConfig(t *testing.T) {
	t.Parallel()
	in := "# comment\n[Core]\n\tEditor = \"vim -f\" # trailing\n\tbare\n[remote \"Origin\"] url = x\\\ny\n[a.B]\n\tk = v ; c\n"
	var got []string
	parseGitConfig([]byte(in), func(n, v string) bool {
		got = append(got, n+"="+v)
		return true
	})
	want := []string{"core.editor=vim -f", "core.bare=true", "remote.Origin.url=xy", "a.b.k=v"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseGitConfig (-want +got):\n%s", diff)
	}
}

// TestConfigHeaderEnd: a section header ends where git ends it, so a "]"
// in a quoted subsection or in a value after the header is not its end.
// Each line is one header git reads (checked with git 2.39: git config
// --list prints the name and value on the right).
func TestConfigHeaderEnd(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"[remote \"o\"] url = https://tok@h/r]x.git\n", "remote.o.url=https://tok@h/r]x.git"},
		{"[credential] helper = \"!f() { echo ]; }; f\"\n", "credential.helper=!f() { echo ]; }; f"},
		{"[url \"https://h/x]y\"]\n\tinsteadOf = z\n", "url.https://h/x]y.insteadof=z"},
		{"[diff \"a]b\"] textconv = cat\n", "diff.a]b.textconv=cat"},
		{"[x \"q\\\"]\\\\\"] k = v\n", `x.q"]\.k=v`},
		{"[includeIf \"gitdir:/w]/\"] path = in.cfg\n", "includeif.gitdir:/w]/.path=in.cfg"},
		// Headers git rejects: the line is skipped and the section stays.
		{"[a]\n[ b ] k = v\n[c \"d\" ] k = v\n[e \"f\n[g\n\tk = w\n", "a.k=w"},
	}
	for _, tt := range tests {
		var got []string
		parseGitConfig([]byte(tt.in), func(n, v string) bool {
			got = append(got, n+"="+v)
			return true
		})
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("parseGitConfig(%q) = %q, want [%q]", tt.in, got, tt.want)
		}
	}
	if got := configTextconv([]byte("[diff \"a]b\"] textconv = cat\n")); got != "diff.a]b.textconv" {
		t.Errorf("configTextconv = %q, want diff.a]b.textconv", got)
	}
	if got := configIncludes([]byte("[includeIf \"gitdir:/w]/\"] path = in.cfg\n")); len(got) != 1 || got[0] != "in.cfg" {
		t.Errorf("configIncludes = %q, want [in.cfg]", got)
	}
}

// TestConfigFormsAgreeWithGit is a differential test of clada's one git
// configuration reader against git itself, from the attacker's side: a
// model writes a project file in a form git reads and asks for `git
// config --file FILE --list`, hoping clada misreads a section header, an
// include or a line ending and lets a credential through. For every form
// git prints the credential of (itself or through an include of a file
// outside the project), configCredential must find it.
func TestConfigFormsAgreeWithGit(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is required: ", err)
	}
	root := t.TempDir()
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	inc := filepath.Join(outside, "creds.inc")
	if err := os.WriteFile(inc, []byte("[credential]\n\thelper = store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	forms := []string{
		"[credential]helper=store\n",
		"[Credential] Helper = \"store\" ; c\n",
		"[credential \"https://h/x]y\"] helper = store\n",
		"[credential \"a\\\"]b\"]\n\thelper = store\n",
		"[credential]\r\n\thelper = store\r\n",
		"[user]\n\tname = \"x]\" # ]\n[credential]\n\thelper = st\\\nore\n",
		"[remote \"o\"] url = https://tok@h/r]x.git\n",
		"[include]path=" + inc + "\n",
		"[Include] PATH = \"" + inc + "\" ; c\n",
		"[include]\r\n\tpath = " + inc + "\r\n",
		"[includeIf \"gitdir:/w]/\"] path = " + inc + "\n",
		"[includeIf \"onbranch:a\\\"]\"]\n\tpath = " + inc + "\n",
		"[includeif \"hasconfig:remote.*.url:https://h/**\"]\n\tpath = " + inc + "\n",
	}
	for i, form := range forms {
		name := fmt.Sprintf("form%d.cfg", i)
		file := filepath.Join(r.Root(), name)
		if err := os.WriteFile(file, []byte(form), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(git, "config", "--file", file, "--includes", "--list")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+outside)
		out, gerr := cmd.CombinedOutput()
		printed := gerr == nil && (strings.Contains(string(out), ".helper=store") || strings.Contains(string(out), "tok@"))
		conditional := strings.Contains(form, "includeIf") || strings.Contains(form, "includeif")
		if !printed && !conditional {
			t.Errorf("%q: git did not print the credential (%v): %s; the form is not one git reads", form, gerr, out)
		}
		got, why := configCredential(&gitrules.ConfigRead{All: true, Scope: "file", File: name}, r.Root(), r, func(k string) string {
			if k == "HOME" {
				return outside
			}
			return ""
		})
		// clada does not evaluate an includeIf condition: it follows
		// every conditional include, whatever git decides here.
		if got == "" && (printed || conditional) {
			t.Errorf("%q: git prints a credential (%s) but configCredential finds none", form, strings.TrimSpace(string(out)))
		} else if got != "" && why == "" {
			t.Errorf("%q: found %s without a reason", form, got)
		}
	}
}
