//go:build !windows

package gateway

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/specs"
)

// TestHeldOut decides the held-out commands of testdata/heldout/*.tsv
// (issue 29, part 5): for each pack, command lines written the way a
// person or an agent types them, from the program's manual and habit,
// before its spec was written, each labelled allow, ask or deny. They
// are decided by the whole gate, as clada check decides them, in a
// project holding the files they name, with every program they name
// installed as a fake executable outside the project (so a version
// query of a program without a spec can be judged, and nothing depends
// on what this machine has).
//
// A line is LABEL<TAB>COMMAND, or LABEL<TAB>COMMAND<TAB>DECISION: WHY
// where the pack deliberately decides otherwise than the label written
// beforehand (the label stays as written, so the count of right labels
// is honest; the test holds the pack to DECISION).
func TestHeldOut(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "heldout", "*.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no held-out files: %v", err)
	}
	type row struct {
		file, label, want, cmd string
		line                   int
	}
	var rows []row
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		n := 0
		for sc.Scan() {
			n++
			l := sc.Text()
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			label, cmd, ok := strings.Cut(l, "\t")
			want := label
			if c, decided, found := strings.Cut(cmd, "\t"); found {
				cmd = c
				want, _, _ = strings.Cut(decided, ":")
			}
			for _, d := range []string{label, want} {
				if !ok || (d != "allow" && d != "ask" && d != "deny") {
					t.Fatalf("%s:%d: want LABEL<TAB>COMMAND[<TAB>DECISION: WHY], got %q", f, n, l)
				}
			}
			rows = append(rows, row{filepath.Base(f), label, want, cmd, n})
		}
		fh.Close()
	}
	bin := t.TempDir()
	for _, r := range rows {
		name, _, _ := strings.Cut(r.cmd, " ")
		if strings.Contains(name, "/") {
			continue
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	root := t.TempDir()
	fixture := map[string]string{
		"a.txt": "a\n", "b.txt": "b\n",
		"SHA256SUMS":            "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\n",
		"outside.sums":          "0000000000000000000000000000000000000000000000000000000000000000  /etc/passwd\n",
		"tsconfig.json":         "{}\n",
		"package.json":          "{}\n",
		"pyproject.toml":        "",
		"src/app.ts":            "",
		"src/app.py":            "",
		"src/App/App.csproj":    "",
		"lib/main.dart":         "",
		"lib/foo.ex":            "",
		"mix.exs":               "",
		"priv/seeds.exs":        "",
		"test/foo_test.exs":     "",
		"test/widget_test.dart": "",
		"pom.xml":               "",
		"build.gradle":          "",
		"App.xcworkspace/x":     "",
		"tool":                  "#!/bin/sh\n",
		"gradlew":               "#!/bin/sh\n",
		"mvnw":                  "#!/bin/sh\n",
	}
	for f, body := range fixture {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmds, err := approve.LoadCommands(root, ParsePattern)
	if err != nil {
		t.Fatal(err)
	}
	set, err := specs.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Options{Root: root, Specs: set, Commands: cmds, Compose: true})
	if err != nil {
		t.Fatal(err)
	}
	right := map[string]int{}
	total := map[string]int{}
	for _, r := range rows {
		res := g.Check(r.cmd, "")
		total[r.file]++
		if string(res.Decision) == r.label {
			right[r.file]++
		}
		if string(res.Decision) == r.want {
			continue
		}
		t.Errorf("%s:%d: `%s` is %s (rule %s: %s), want %s", r.file, r.line, r.cmd, res.Decision, res.Rule, res.Reason, r.want)
	}
	sum, all := 0, 0
	for f, n := range total {
		t.Logf("%s: %d of %d as labelled", f, right[f], n)
		sum += right[f]
		all += n
	}
	t.Logf("held out: %d of %d as labelled", sum, all)
}
