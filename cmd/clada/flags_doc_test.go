package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

const (
	flagsBegin = "<!-- BEGIN flags: generated from the cli.App of cmd/clada by `go test ./cmd/clada -run TestFlagsDoc -update`; do not edit by hand -->"
	flagsEnd   = "<!-- END flags -->"
)

// flagsDoc is the Markdown list of every command of the app and its
// flags, read from the cli.App value that clada runs (newApp), so it
// says what the code accepts however the command tree is laid out in
// files: one heading per visible command and subcommand, its usage line,
// and a table of its visible flags with their defaults.
func flagsDoc(app *cli.App) string {
	var b strings.Builder
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			name := path + " " + c.Name
			b.WriteString("### `" + name)
			if c.ArgsUsage != "" {
				b.WriteString(" " + c.ArgsUsage)
			} else if len(c.Subcommands) > 0 {
				b.WriteString(" COMMAND")
			}
			b.WriteString("`\n\n")
			b.WriteString(mdCell(c.Usage))
			if len(c.Aliases) > 0 {
				b.WriteString(" (also `" + path + " " + strings.Join(c.Aliases, "`, `"+path+" ") + "`)")
			}
			b.WriteString(".\n\n")
			if flags := visibleFlags(c.Flags); len(flags) > 0 {
				b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
				for _, f := range flags {
					b.WriteString("| " + flagName(f) + " | " + flagDefault(f) + " | " + mdCell(f.GetUsage()) + " |\n")
				}
				b.WriteString("\n")
			}
			walk(name, c.Subcommands)
		}
	}
	walk(app.Name, app.Commands)
	return b.String()
}

func visibleFlags(flags []cli.Flag) []cli.DocGenerationFlag {
	var out []cli.DocGenerationFlag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			out = append(out, d)
		}
	}
	return out
}

// flagName is `--name VALUE` (or `--name` for a switch), with its other
// names: `-n`, `--other`.
func flagName(f cli.DocGenerationFlag) string {
	var names []string
	for _, n := range f.Names() {
		dash := "--"
		if len(n) == 1 {
			dash = "-"
		}
		names = append(names, dash+n)
	}
	s := "`" + strings.Join(names, "`, `")
	if f.TakesValue() {
		s += " VALUE"
	}
	return s + "`"
}

// flagDefault is the default as --help says it: the flag's DefaultText,
// else its value without Go's quotes; a switch is on or off.
func flagDefault(f cli.DocGenerationFlag) string {
	t := f.GetDefaultText()
	if !f.TakesValue() {
		switch t {
		case "false":
			return "off"
		case "true":
			return "on"
		}
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, `"`), `"`)
	if t == "" {
		return "—"
	}
	return mdCell(t)
}

// mdCell makes s safe inside a Markdown table cell on one line.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// TestFlagsDoc: docs/usage.md lists every command and flag of the app as
// the code defines them, so the list cannot drift; -update rewrites it.
func TestFlagsDoc(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "usage.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, flagsBegin), strings.Index(doc, flagsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q markers", path, flagsBegin, flagsEnd)
	}
	got, want := doc[i+len(flagsBegin)+1:j], flagsDoc(newApp(strings.NewReader(""), io.Discard, io.Discard))
	if got == want {
		return
	}
	if !*update {
		t.Errorf("%s: the list of commands and flags is out of date; run `go test ./cmd/clada -run TestFlagsDoc -update` (-want +got):\n%s",
			path, cmp.Diff(want, got))
		return
	}
	if err := os.WriteFile(path, []byte(doc[:i+len(flagsBegin)+1]+want+doc[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFlagsDocComplete: the generated list names every visible command
// and every flag each one accepts, checked against the app by parsing:
// each flag the list shows for a command is one the command accepts.
func TestFlagsDocComplete(t *testing.T) {
	t.Parallel()
	app := newApp(strings.NewReader(""), io.Discard, io.Discard)
	doc := flagsDoc(app)
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		if !strings.Contains(doc, "### `clada "+c.Name) {
			t.Errorf("the list has no heading for clada %s", c.Name)
		}
		for _, f := range visibleFlags(c.Flags) {
			if !strings.Contains(doc, "| `--"+f.Names()[0]) {
				t.Errorf("the list has no row for clada %s --%s", c.Name, f.Names()[0])
			}
		}
	}
	for _, want := range []string{"### `clada run [FILE...|-]`", "| `--dry-run` | off |", "### `clada hook install", "| `--last VALUE` | 50 |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the list lacks %q:\n%s", want, doc)
		}
	}
}
