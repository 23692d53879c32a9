package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// projectFiles is the tree [Project] writes. The commands of [Document]
// name these paths, so that path confinement resolves real files and
// directories, as it does in a real repository.
var projectFiles = map[string]string{
	"README.md":            "# demo\n\nA project to run clada's benchmarks in.\n",
	"go.mod":               "module example.com/demo\n\ngo 1.26\n",
	"small.txt":            "a small file that every `cat` block prints\n",
	"parser/blocks.go":     "package parser\n\n// TODO: handle CRLF\nfunc Blocks() {}\n",
	"parser/command.go":    "package parser\n\nfunc Command() {}\n",
	"parser/README.md":     "parser notes\n",
	"sub/notes.txt":        "notes in sub\n",
	"sub/deep/inner.txt":   "deeper\n",
	"docs/design.md":       "# design\n",
	"internal/x/x.go":      "package x\n",
	"internal/x/x_test.go": "package x\n",
}

// Project writes the demo project tree under dir (created if needed):
// a handful of files and directories the generated commands refer to.
func Project(dir string) error {
	for name, body := range projectFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(dir, "build"), 0o755)
}

// block is one RUN block of the mix: its body and dir attribute.
type block struct{ body, dir string }

// mix is the command mix of [Document], in the proportions a model
// writes them while working on a Go repository: mostly reads allowed by
// the specs and git rules, some commands that need approval, and a few
// that are refused (shell syntax, expansion, paths outside the root, a
// hard block). Every refusal path of the pipeline is exercised, so the
// figure is not flattered by an all-allow document.
var mix = []block{
	{"git status", ""},
	{"ls -la", ""},
	{"cat README.md", ""},
	{"grep -rn TODO parser", ""},
	{"git diff --stat", ""},
	{"head -n 20 parser/blocks.go", ""},
	{"git log -n 5 --oneline", ""},
	{"find . -name '*.go' -type f", ""},
	{"wc -l parser/blocks.go parser/command.go", ""},
	{"ls", "sub"},
	{"cat notes.txt", "sub"},
	{"tail -n 5 go.mod", ""},
	{"grep -n \"func \" parser/command.go", ""},
	{"git show HEAD --stat", ""},
	{"mkdir -p build/out", ""},
	{"touch build/stamp", ""},
	{"stat deep/inner.txt", "sub"},
	{"diff parser/blocks.go parser/command.go", ""},
	{"go test ./parser/...", ""},        // ask: not in the specs
	{"git commit -m 'wip'", ""},         // ask: git subcommand
	{"rm -rf build && echo done", ""},   // deny: shell syntax
	{"cat $HOME/.ssh/id_rsa", ""},       // deny: expansion
	{"cat ../../etc/passwd", ""},        // deny: path outside the root
	{"touch .git/hooks/pre-commit", ""}, // deny: protected path
	{"sudo rm -rf /", ""},               // deny: hard block
}

// Document returns a CSL document with n RUN blocks taken in turn from a
// realistic mix of commands (see mix), with a line of prose before each
// and every tenth group of five blocks inside a TASKS group, as model
// replies are. With the default specs and no .clada/ files, in a tree
// made by [Project], 18 in 25 blocks are allowed, 2 asked and 5 denied.
func Document(n int) string {
	var b strings.Builder
	b.Grow(n * 64)
	inTasks := false
	for i := range n {
		if i%50 == 0 {
			b.WriteString("<---TASKS version=\"1\"--->\n")
			inTasks = true
		}
		blk := mix[i%len(mix)]
		fmt.Fprintf(&b, "Step %d: let me look at this.\n", i+1)
		if blk.dir != "" {
			fmt.Fprintf(&b, "<---RUN dir=%q--->\n", blk.dir)
		} else {
			b.WriteString("<---RUN--->\n")
		}
		b.WriteString(blk.body)
		b.WriteString("\n<---END--->\n\n")
		if inTasks && i%50 == 4 {
			b.WriteString("<---END TASKS--->\n")
			inTasks = false
		}
	}
	if inTasks {
		b.WriteString("<---END TASKS--->\n")
	}
	return b.String()
}

// CatDocument returns a CSL document of n RUN blocks that each run
// `cat file`, allowed by the default specs.
func CatDocument(n int, file string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Block %d.\n<---RUN--->\ncat %s\n<---END--->\n", i+1, file)
	}
	return b.String()
}

// CatScript returns a bash script that runs the same n commands as
// [CatDocument], the reference clada is compared with: what the commands
// cost without clada in front. bash forks and execs each one and lets it
// write straight to the script's stdout, so it does less than clada,
// which also captures and caps the output.
func CatScript(n int, file string) string {
	return fmt.Sprintf("#!/usr/bin/env bash\nfor ((i = 0; i < %d; i++)); do\n  cat %s\ndone\n", n, file)
}
