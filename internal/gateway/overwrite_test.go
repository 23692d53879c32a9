package gateway

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
)

// gitRun runs git in root as gitRepo does, for tests that add to its
// repository.
func gitRun(t *testing.T, root string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+root,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// writeFiles writes each name (relative to root) with its name as content.
func writeFiles(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type overwriteCase struct {
	cmd  string
	dir  string
	want Decision
	rule rules.Rule
	lost []string // files the question names, for a not-restorable ask
}

// checkOverwrites decides each case in g and checks the decision, the
// rule, the files named as lost, and that a not-restorable question names
// the rule's word and advice.
func checkOverwrites(t *testing.T, g *Gateway, cases []overwriteCase) {
	t.Helper()
	for _, tt := range cases {
		argv, err := parser.Command(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := g.Decide(argv, tt.dir)
		if v.Decision != tt.want || v.Rule != tt.rule || strings.Join(v.Lost, " ") != strings.Join(tt.lost, " ") {
			t.Errorf("Decide(%q in %q) = %s (%s: %s) lost %q, want %s (%s) lost %q",
				tt.cmd, tt.dir, v.Decision, v.Rule, v.Reason, v.Lost, tt.want, tt.rule, tt.lost)
			continue
		}
		if len(tt.lost) > 0 {
			for i, l := range tt.lost {
				if i == 5 {
					break // the question names five, "and N more"
				}
				if !strings.Contains(v.Why, l+" (") {
					t.Errorf("Decide(%q): the question %q does not name %s", tt.cmd, v.Why, l)
				}
			}
			if tt.rule == rules.NotRestorable && (v.Advice == "" || v.Word == "") {
				t.Errorf("Decide(%q): ask without advice or word: %+v", tt.cmd, v)
			}
		}
	}
}

// TestFormatPatchOverwrites: git format-patch writes NNNN-subject.patch
// (or N with --numbered-files, vN-… with -v) into -o DIR or the block's
// directory, names clada cannot see as operands; an existing file there
// that it may write and git cannot restore makes the command asked.
func TestFormatPatchOverwrites(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t)
	gitRepo(t, root)
	writeFiles(t, root, "kept/0001-one.patch")
	gitRun(t, root, "add", "kept")
	gitRun(t, root, "commit", "-qm", "kept")
	// git status names a file in a directory it tracks, and an untracked
	// directory as a whole (nums/).
	writeFiles(t, root, "0001-x.patch", "nums/1", "kept/v2-0001-one.patch", "kept/notes.txt",
		"notes/README.md", "cover/0000-cover-letter.patch", "sub/0001-x.patch")
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	checkOverwrites(t, g, []overwriteCase{
		{cmd: "git format-patch -1", want: Ask, rule: rules.NotRestorable, lost: []string{"0001-x.patch"}},
		{cmd: "git format-patch -1 --suffix=.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"0001-x.patch"}},
		{cmd: "git format-patch -1 -o out", want: Allow, rule: "spec"},
		{cmd: "git format-patch -1 -o empty", want: Allow, rule: "spec"},
		{cmd: "git format-patch -1 -o kept", want: Allow, rule: "spec"}, // committed, unmodified; v2-… only with -v
		{cmd: "git format-patch -1 -o kept -v2", want: Ask, rule: rules.NotRestorable, lost: []string{"kept/v2-0001-one.patch"}},
		{cmd: "git format-patch -1 -o kept --reroll-count=3", want: Ask, rule: rules.NotRestorable, lost: []string{"kept/v2-0001-one.patch"}},
		{cmd: "git format-patch -1 -o notes", want: Allow, rule: "spec"}, // no name git writes
		{cmd: "git format-patch -1 -o nums --numbered-files", want: Ask, rule: rules.NotRestorable, lost: []string{"nums/"}},
		{cmd: "git format-patch -1 --output-directory=sub", want: Ask, rule: rules.NotRestorable, lost: []string{"sub/"}},
		{cmd: "git format-patch -1", dir: "sub", want: Ask, rule: rules.NotRestorable, lost: []string{"sub/"}},
		{cmd: "git format-patch -1 -o ../empty", dir: "sub", want: Allow, rule: "spec"},
		{cmd: "git format-patch -1 -o cover --cover-letter", want: Ask, rule: rules.NotRestorable, lost: []string{"cover/"}},
		{cmd: "git format-patch --stdout -1", want: Allow, rule: "spec"},
	})
}

// TestGitOutputOverwrites: an asked git command's output file (git
// archive -o FILE) is named in the question when git cannot restore it,
// and a prefix pattern does not cover replacing it.
func TestGitOutputOverwrites(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "git archive *")
	gitRepo(t, root)
	checkOverwrites(t, g, []overwriteCase{
		{cmd: "git archive -o new.tar HEAD", want: Allow, rule: rules.AllowedPattern},
		{cmd: "git archive -o a.txt HEAD", want: Allow, rule: rules.AllowedPattern},
		{cmd: "git archive -o untracked.txt HEAD", want: Ask, rule: "git-subcommand", lost: []string{"untracked.txt"}},
		{cmd: "git archive --output=mod.txt HEAD", want: Ask, rule: "git-subcommand", lost: []string{"mod.txt"}},
	})
}

// TestOutputOverwrites: options that name the file a program writes
// (sort -o, tar -cf, go test -coverprofile, pytest --basetemp), the
// backup NAME~ of cp -b and ln -b, and the directory tar -x extracts
// into are checked as replaced. Under a prefix pattern (tar *, go test *,
// pytest *) the command runs only when git can restore what it replaces;
// otherwise it is asked and the question names what would be lost.
func TestOutputOverwrites(t *testing.T) {
	t.Parallel()
	g, root := newTestGateway(t, "tar *", "go test *", "pytest *")
	gitRepo(t, root)
	writeFiles(t, root, "notes.txt", "b.txt~", "deep/z.txt")
	if err := os.Mkdir(filepath.Join(root, "fresh"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The project root holds untracked, ignored and modified files (and
	// .clada/, which git status does not report): extracting there may
	// replace them.
	rootLost := []string{"b.txt~", "build/", "deep/", "mixed/new.txt", "mod.txt", "notes.txt", "untracked.txt"}
	checkOverwrites(t, g, []overwriteCase{
		{cmd: "sort -o untracked.txt a.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"untracked.txt"}},
		{cmd: "sort --output=mod.txt a.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"mod.txt"}},
		{cmd: "sort -o a.txt b.txt", want: Allow, rule: "spec"},
		{cmd: "sort -o new.txt a.txt", want: Allow, rule: "spec"},
		{cmd: "tar -cf untracked.txt a.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"untracked.txt"}},
		{cmd: "tar czf notes.txt a.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"notes.txt"}},

		{cmd: "tar -xf x.tar", want: Ask, rule: "spec-ask", lost: rootLost},
		{cmd: "tar xf x.tar", dir: "mixed", want: Ask, rule: "spec-ask", lost: []string{"mixed/new.txt"}},
		{cmd: "tar -xf x.tar -C mixed", want: Ask, rule: "spec-ask", lost: []string{"mixed/new.txt"}},
		{cmd: "tar --extract --file=x.tar --directory=mixed", want: Ask, rule: "spec-ask", lost: []string{"mixed/new.txt"}},
		{cmd: "tar -xkf x.tar -C mixed", want: Ask, rule: "spec-ask", lost: []string{"mixed/new.txt"}},
		{cmd: "tar -xf x.tar a.txt -C src", want: Ask, rule: "spec-ask", lost: rootLost}, // a.txt goes into the root
		{cmd: "tar -xf x.tar -C src", want: Allow, rule: rules.AllowedPattern},
		{cmd: "tar -xf x.tar -C src -C deep", want: Allow, rule: rules.AllowedPattern}, // src/deep, not deep/
		{cmd: "tar -xf x.tar -C src deep/y.go", want: Allow, rule: rules.AllowedPattern},
		{cmd: "tar xf x.tar", dir: "src", want: Allow, rule: rules.AllowedPattern},
		{cmd: "tar -xf x.tar -C fresh", want: Allow, rule: rules.AllowedPattern},
		{cmd: "tar -xOf x.tar", want: Allow, rule: rules.AllowedPattern},
		{cmd: "tar -xf x.tar --to-stdout", want: Allow, rule: rules.AllowedPattern},

		{cmd: "go test -coverprofile=notes.txt ./...", want: Ask, rule: "spec-ask", lost: []string{"notes.txt"}},
		{cmd: "go test -cpuprofile untracked.txt ./...", want: Ask, rule: "spec-ask", lost: []string{"untracked.txt"}},
		{cmd: "go test -o mod.txt ./...", want: Ask, rule: "spec-ask", lost: []string{"mod.txt"}},
		{cmd: "go test -coverprofile=fresh/c.out ./...", want: Allow, rule: rules.AllowedPattern},
		{cmd: "go test -outputdir=src -coverprofile=notes.txt ./...", want: Deny, rule: "unknown-flag"},
		{cmd: "pytest --basetemp=mixed", want: Ask, rule: "spec-ask", lost: []string{"mixed/new.txt"}},
		{cmd: "pytest --basetemp=notes.txt", want: Ask, rule: "spec-ask", lost: []string{"notes.txt"}},
		{cmd: "pytest --junitxml=untracked.txt", want: Ask, rule: "spec-ask", lost: []string{"untracked.txt"}},
		{cmd: "pytest --basetemp=fresh", want: Allow, rule: rules.AllowedPattern},
		{cmd: "pytest --basetemp=src", want: Allow, rule: rules.AllowedPattern}, // tracked, unmodified

		{cmd: "cp -b a.txt b.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"b.txt~"}},
		{cmd: "cp --backup=simple a.txt b.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"b.txt~"}},
		{cmd: "cp -b b.txt a.txt", want: Allow, rule: "spec"},
		{cmd: "cp a.txt b.txt", want: Allow, rule: "spec"},
		{cmd: "mv -b a.txt b.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"b.txt~"}},
		{cmd: "ln -sfb a.txt b.txt", want: Ask, rule: rules.NotRestorable, lost: []string{"b.txt~"}},
	})
}
