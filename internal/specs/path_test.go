package specs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	r, base := newFixture(t)
	root := r.Root()
	tests := []struct {
		name, dir, p string
		want         string // relative to the root, or "" when denied
		rule         rules.Rule
		reason       string
	}{
		{name: "plain", p: "a.txt", want: "a.txt"},
		{name: "root dot", p: ".", want: ""},
		{name: "root itself absolute", p: root, want: ""},
		{name: "absolute inside", p: root + "/dir/a.txt", want: "dir/a.txt"},
		{name: "absolute outside", p: "/etc/passwd", rule: rules.PathOutsideRoot},
		{name: "slash", p: "/", rule: rules.PathOutsideRoot},
		{name: "dotdot out", p: "../x", rule: rules.PathOutsideRoot},
		{name: "dotdot leaves and re-enters", p: "../proj/a.txt", want: "a.txt"},
		{name: "sibling with common prefix", p: "../proj2/x", rule: rules.PathOutsideRoot, reason: "/p/proj2 is not inside /p/proj"},
		{name: "absolute sibling with common prefix", p: base + "/proj2", rule: rules.PathOutsideRoot},
		{name: "link out", p: "escape", rule: rules.PathOutsideRoot},
		{name: "link out then dotdot", p: "escape/../etc/passwd", rule: rules.PathOutsideRoot, reason: "symlinks before .."},
		{name: "link out then dotdot back to root name", p: "escape/../" + root[1:] + "/a.txt", want: "a.txt", reason: "/etc/.. is /, and from there the root"},
		{name: "dangling link out", p: "dangling", rule: rules.PathOutsideRoot, reason: "touch writes where a dangling link points"},
		{name: "symlinked parent to outside, child not yet there", p: "outlink/newdir/newfile", rule: rules.PathOutsideRoot},
		{name: "link inside", p: "inlink/a.txt", want: "dir/a.txt"},
		{name: "link inside then dotdot", p: "inlink/../a.txt", want: "a.txt"},
		{name: "link to parent", p: "uplink", rule: rules.PathOutsideRoot},
		{name: "link to parent and back", p: "uplink/proj/b.txt", want: "b.txt"},
		{name: "nested link up", p: "dir/up/proj2", rule: rules.PathOutsideRoot},
		{name: "missing then dotdot", p: "nothere/../a.txt", want: "a.txt"},
		{name: "missing deep", p: "x/y/z", want: "x/y/z"},
		{name: "below a file is missing (ENOTDIR)", p: "a.txt/x/y", want: "a.txt/x/y"},
		{name: "trailing slash", p: "dir/", want: "dir"},
		{name: "double slashes", p: "dir//a.txt", want: "dir/a.txt"},
		{name: "link into .git", p: "gitlink/config", want: ".git/config"},
		{name: "tilde", p: "~", rule: rules.PathOutsideRoot},
		{name: "tilde slash", p: "~/x", rule: rules.PathOutsideRoot},
		{name: "tilde user", p: "~user", rule: rules.PathOutsideRoot},
		{name: "tilde inside is a name", p: "./~x", want: "~x"},
		{name: "loop", p: "loop1", rule: rules.PathOutsideRoot},
		{name: "empty", p: "", rule: rules.Spec},
		{name: "from subdir", dir: "dir/sub", p: "../../a.txt", want: "a.txt"},
		{name: "from subdir out", dir: "dir/sub", p: "../../../x", rule: rules.PathOutsideRoot},
		{name: "from linked dir", dir: "inlink", p: "../a.txt", want: "a.txt", reason: "inlink is dir, so .. is the root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Resolve(filepath.Join(root, tt.dir), tt.p)
			if tt.rule != "" {
				var de *rules.Denied
				if !errors.As(err, &de) {
					t.Fatalf("Resolve(%q) = %q, %v; want a rules.Denied %s", tt.p, got, err, tt.rule)
				}
				if diff := cmp.Diff(tt.rule, de.Rule); diff != "" {
					t.Errorf("rule (-want +got):\n%s", diff)
				}
				if de.Reason == "" || de.Advice == "" || de.Word != tt.p && tt.p != "" {
					t.Errorf("incomplete rules.Denied %+v", de)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.p, err)
			}
			want := filepath.Join(root, tt.want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Resolve(%q) (-want +got):\n%s", tt.p, diff)
			}
		})
	}
}

func TestConfineProtected(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	tests := []struct {
		name, p string
		write   bool
		want    rules.Rule // "" allowed
	}{
		{"read .git/config", ".git/config", false, ""},
		{"write .git/config", ".git/config", true, rules.ProtectedPath},
		{"write .git itself", ".git", true, rules.ProtectedPath},
		{"write .clada itself", ".clada", true, rules.ProtectedPath},
		{"write .clada/commands.toml", ".clada/commands.toml", true, rules.ProtectedPath},
		{"write new file in .clada", ".clada/specs.toml", true, rules.ProtectedPath},
		{"write through link to .git", "gitlink/hooks/x", true, rules.ProtectedPath},
		{"write dangling-ish link into .git", "hooklink", true, rules.ProtectedPath},
		{"write upper-case .GIT", ".GIT/config", true, rules.ProtectedPath},
		{"write nested repo .git", "dir/.git/config", true, rules.ProtectedPath},
		{"write .gitignore", ".gitignore", true, ""},
		{"write .github", ".github/workflows/x.yml", true, ""},
		{"write .claday", ".claday", true, ""},
		{"write normal", "dir/new.txt", true, ""},
		{"write root itself", ".", true, ""},
		{"write via dotdot into .git", "dir/../.git/x", true, rules.ProtectedPath},
		{"write outside", "/tmp/x", true, rules.PathOutsideRoot},
		{"read hard-linked file", "hardlink", false, ""},
		{"write hard-linked file", "hardlink", true, rules.ProtectedPath},
		{"write hard-linked .clada file by its own name", ".clada/commands.toml", true, rules.ProtectedPath},
		{"write directory (many links) is not a hard link", "dir", true, ""},
		// The agents' settings: hooks there run outside clada (issue 28).
		{"write Claude Code's local settings", ".claude/settings.local.json", true, rules.ProtectedPath},
		{"make .claude", ".claude", true, rules.ProtectedPath},
		{"write .claude in a subdirectory", "dir/.claude/settings.json", true, rules.ProtectedPath},
		{"write Gemini CLI's settings, upper case", ".GEMINI/settings.json", true, rules.ProtectedPath},
		{"write Cursor's hooks", ".cursor/hooks.json", true, rules.ProtectedPath},
		{"write Codex's config", ".codex/config.toml", true, rules.ProtectedPath},
		{"read Claude Code's settings", ".claude/settings.json", false, ""},
		{"write .claudeignore", ".claudeignore", true, ""},
		{"write CLAUDE.md", "CLAUDE.md", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := r.Confine(root, tt.p, tt.write)
			var got rules.Rule
			var de *rules.Denied
			if errors.As(err, &de) {
				got = de.Rule
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Confine(%q, %v) (-want +got):\n%s", tt.p, tt.write, diff)
			}
		})
	}
}

// TestResolverReset shows why the cache must be reset after a command
// runs: a directory replaced by a symlink is seen only after Reset.
func TestResolverReset(t *testing.T) {
	t.Parallel()
	r, base := newFixture(t)
	root := r.Root()
	if _, err := r.Resolve(root, "dir2/x"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "dir2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "dir2")); err != nil {
		t.Fatal(err)
	}
	r.Reset()
	if _, err := r.Resolve(root, "dir2/x"); err == nil {
		t.Fatal("after Reset, dir2 -> outside still resolves inside")
	}
}

func TestNewResolverSymlinkedRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	mustMkdir(t, real)
	if err := os.Symlink(real, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(filepath.Join(base, "link"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	if r.Root() != want {
		t.Errorf("Root() = %q, want %q", r.Root(), want)
	}
	// A base given through the unresolved link is still inside.
	if _, err := r.Resolve(filepath.Join(base, "link"), "a.txt"); err != nil {
		t.Errorf("Resolve through the root's link: %v", err)
	}
	if _, err := NewResolver(filepath.Join(base, "missing")); err == nil {
		t.Error("NewResolver of a missing root succeeded")
	}
}

// TestWalkTree checks what makes an existing destination tree unsafe to
// copy into, and the bound on its size.
func TestWalkTree(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	for _, f := range []string{"big/1", "big/2", "big/3", "clean/a/b", "nested/sub/.GIT/x", "linked/sub/f"} {
		mustMkdir(t, filepath.Join(root, filepath.Dir(f)))
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustMkdir(t, filepath.Join(root, "clada/x/.clada"))
	if err := os.Link(filepath.Join(root, "linked/sub/f"), filepath.Join(root, "linked/g")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir string
		limit     int
		want      rules.Rule // "" allowed
		reason    string
	}{
		{"clean tree", "clean", 10, "", ""},
		{"empty dir", "emptydir", 10, "", ""},
		{"symlink below", "tree", 10, rules.ProtectedPath, "tree/dir/link"},
		{"nested .GIT below", "nested", 10, rules.ProtectedPath, "nested/sub/.GIT"},
		{".clada below", "clada", 10, rules.ProtectedPath, "clada/x/.clada"},
		{"hard-linked file below", "linked", 10, rules.ProtectedPath, "hard links"},
		{"at the bound", "big", 4, "", ""},
		{"over the bound", "big", 3, rules.ProtectedPath, "too large"},
		// the source of a recursive copy is read: only symlinks matter
		{"source: clean tree", "src:clean", 10, "", ""},
		{"source: symlink below", "src:tree", 10, rules.ProtectedPath, "tree/dir/link"},
		{"source: nested .GIT is read", "src:nested", 10, "", ""},
		{"source: hard-linked file is read", "src:linked", 10, "", ""},
		{"source: over the bound", "src:big", 3, rules.ProtectedPath, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, source := strings.CutPrefix(tt.dir, "src:")
			tt.dir = dir
			err := r.walk1(tt.dir, filepath.Join(root, tt.dir), tt.limit, source)
			var got rules.Rule
			var de *rules.Denied
			if errors.As(err, &de) {
				got = de.Rule
				if de.Word != tt.dir || de.Advice == "" || !strings.Contains(de.Reason, tt.reason) {
					t.Errorf("rules.Denied %+v, want Arg %q and a reason naming %q", de, tt.dir, tt.reason)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("walkTree(%q) (-want +got):\n%s", tt.dir, diff)
			}
		})
	}
}

// TestResolveLongPath builds a directory chain longer than PATH_MAX with a
// symlink to /etc at its bottom. lstat of such a path fails with
// ENAMETOOLONG, so the link cannot be seen by its full name; the program,
// run inside the deep directory with a short relative path, follows it
// anyway. Such paths are denied rather than taken as missing names.
func TestResolveLongPath(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	// os.Root works relative to directory handles, so each step is short.
	cur, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 250)
	rel := ""
	for i := 0; i < 17; i++ {
		if err := cur.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := cur.OpenRoot(name)
		cur.Close()
		if err != nil {
			t.Fatal(err)
		}
		cur = next
		rel = filepath.Join(rel, name)
	}
	err = cur.Symlink("/etc", "l")
	cur.Close()
	if err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, rel)
	if len(deep) <= 4096 {
		t.Fatalf("deep directory is only %d bytes long", len(deep))
	}
	s := testSet(t)
	tests := []struct {
		name, dir, in string
	}{
		{"link below a long working directory", rel, "cat l/passwd"},
		{"written below a long working directory", rel, "touch l/x"},
		{"long relative path from the root", "", "cat " + rel + "/l/passwd"},
		{"long path that is missing", "", "cat " + strings.Repeat("x/", 2100) + "y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv := strings.Fields(tt.in)
			v := s.Check(argv, filepath.Join(root, tt.dir), r)
			if v.Outcome != Deny || v.Rule != rules.PathOutsideRoot {
				t.Fatalf("Check(%.40q…) = %s %s: %s; want deny %s", tt.in, v.Outcome, v.Rule, v.Reason, rules.PathOutsideRoot)

			}
			if !strings.Contains(v.Advice, "shorter path") || len(v.Reason) > 400 {
				t.Errorf("reason %q, advice %q: want a short reason and advice to use a shorter path", v.Reason, v.Advice)
			}
		})
	}
	// A short path in the same tree is still fine.
	if _, err := r.Resolve(root, rel[:1000]+"/x"); err != nil {
		t.Errorf("short path: %v", err)
	}
}
