package gateway

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/parser"
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
	rule string
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
			for _, l := range tt.lost {
				if !strings.Contains(v.Why, l+" (") {
					t.Errorf("Decide(%q): the question %q does not name %s", tt.cmd, v.Why, l)
				}
			}
			if tt.rule == RuleNotRestorable && (v.Advice == "" || v.Word == "") {
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
		{cmd: "git format-patch -1", want: Ask, rule: RuleNotRestorable, lost: []string{"0001-x.patch"}},
		{cmd: "git format-patch -1 --suffix=.txt", want: Ask, rule: RuleNotRestorable, lost: []string{"0001-x.patch"}},
		{cmd: "git format-patch -1 -o out", want: Allow, rule: "spec"},
		{cmd: "git format-patch -1 -o empty", want: Allow, rule: "spec"},
		{cmd: "git format-patch -1 -o kept", want: Allow, rule: "spec"}, // committed, unmodified; v2-… only with -v
		{cmd: "git format-patch -1 -o kept -v2", want: Ask, rule: RuleNotRestorable, lost: []string{"kept/v2-0001-one.patch"}},
		{cmd: "git format-patch -1 -o kept --reroll-count=3", want: Ask, rule: RuleNotRestorable, lost: []string{"kept/v2-0001-one.patch"}},
		{cmd: "git format-patch -1 -o notes", want: Allow, rule: "spec"}, // no name git writes
		{cmd: "git format-patch -1 -o nums --numbered-files", want: Ask, rule: RuleNotRestorable, lost: []string{"nums/"}},
		{cmd: "git format-patch -1 --output-directory=sub", want: Ask, rule: RuleNotRestorable, lost: []string{"sub/"}},
		{cmd: "git format-patch -1", dir: "sub", want: Ask, rule: RuleNotRestorable, lost: []string{"sub/"}},
		{cmd: "git format-patch -1 -o ../empty", dir: "sub", want: Allow, rule: "spec"},
		{cmd: "git format-patch -1 -o cover --cover-letter", want: Ask, rule: RuleNotRestorable, lost: []string{"cover/"}},
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
		{cmd: "git archive -o new.tar HEAD", want: Allow, rule: RuleAllowedPattern},
		{cmd: "git archive -o a.txt HEAD", want: Allow, rule: RuleAllowedPattern},
		{cmd: "git archive -o untracked.txt HEAD", want: Ask, rule: "git-subcommand", lost: []string{"untracked.txt"}},
		{cmd: "git archive --output=mod.txt HEAD", want: Ask, rule: "git-subcommand", lost: []string{"mod.txt"}},
	})
}
