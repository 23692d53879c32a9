//go:build !windows

// The examples of docs/rules.md are POSIX command lines (/etc/passwd,
// executables without .exe), so this test runs where they mean what the
// page says; the rule table itself is checked on every platform.

package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// noExample are the rules docs/rules.md cannot show with a short
// `clada check`: an unforeseen failure, a 128 KiB argument, a git
// configuration outside the project that includes a file inside it,
// self-exec, which needs the running clada (here the test binary) on PATH,
// as the scripts of cmd/clada have it (exec_self_*.txtar), and a PATH
// that leads into the project, or a program outside it whose question
// depends on PATH and on what the person can write (program-outside).
var noExample = map[rules.Rule]bool{rules.Error: true, rules.ArgTooLong: true, rules.GitInclude: true, rules.SelfExec: true,
	rules.ProjectProgram: true, rules.ProgramOutside: true, rules.Backslash: true, rules.NotFound: true}

// docExample is one example line of docs/rules.md:
// `clada check [--dir D] [--untrusted] 'BODY'`, `clada allow 'P'` or
// `clada block 'P'`.
type docExample struct {
	line      string
	cmd       string // check, allow or block
	dir       string
	untrusted bool
	os        string // --os
	body      string
}

func parseExample(t *testing.T, line string) docExample {
	t.Helper()
	ex := docExample{line: line}
	rest, ok := strings.CutPrefix(line, "clada ")
	if !ok {
		t.Fatalf("docs/rules.md: example %q does not start with `clada `", line)
	}
	ex.cmd, rest, _ = strings.Cut(rest, " ")
	for strings.HasPrefix(rest, "--") {
		var flag string
		flag, rest, _ = strings.Cut(rest, " ")
		switch flag {
		case "--dir":
			ex.dir, rest, _ = strings.Cut(rest, " ")
		case "--untrusted":
			ex.untrusted = true
		case "--os":
			ex.os, rest, _ = strings.Cut(rest, " ")
		default:
			t.Fatalf("docs/rules.md: example %q: the test knows no flag %s", line, flag)
		}
	}
	if len(rest) < 2 || rest[0] != '\'' || rest[len(rest)-1] != '\'' || strings.Count(rest, "'") != 2 {
		t.Fatalf("docs/rules.md: example %q: write the command as one single-quoted word without other single quotes", line)
	}
	ex.body = rest[1 : len(rest)-1]
	if ex.cmd != "check" && ex.cmd != "allow" && ex.cmd != "block" {
		t.Fatalf("docs/rules.md: example %q: the test runs only clada check, allow and block", line)
	}
	return ex
}

// TestRulesDocExamples runs every example of docs/rules.md in a fresh
// project, deciding as clada check does (compositions on): each `clada check` must give the rule of its section, with a
// decision that the rule can give. Programs come from a PATH of fake
// executables, so the result does not depend on what is installed: every
// program an example names exists, except in the program-not-found
// section.
func TestRulesDocExamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := ruleSections(t, string(data))
	examples := map[rules.Rule][]docExample{}
	bin := t.TempDir()
	for code, lines := range sections {
		for _, l := range lines {
			l, ok := strings.CutPrefix(l, "    ")
			if !ok || !strings.HasPrefix(l, "clada ") {
				continue
			}
			ex := parseExample(t, l)
			examples[rules.Rule(code)] = append(examples[rules.Rule(code)], ex)
			if rules.Rule(code) == rules.NotFound {
				continue
			}
			name, _, _ := strings.Cut(ex.body, " ")
			if name != "" && !strings.Contains(name, "/") {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Setenv("PATH", bin)
	for _, r := range rules.All() {
		exs := examples[r.Rule]
		if len(exs) == 0 && !noExample[r.Rule] {
			t.Errorf("docs/rules.md: the section on %q has no example (an indented `clada check '…'` line)", r.Rule)
		}
		for _, ex := range exs {
			if ex.cmd != "check" {
				continue
			}
			t.Run(string(r.Rule)+"/"+ex.body, func(t *testing.T) {
				root := t.TempDir()
				for _, d := range []string{".clada", "src", "build"} {
					if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for _, f := range []string{"a.txt", "b.txt", "build/x.o"} {
					if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				// The section's allow and block lines set up the project.
				for _, setup := range exs {
					list := approve.ListAllowed
					switch setup.cmd {
					case "check":
						continue
					case "block":
						list = approve.ListBlocked
					}
					if _, err := approve.Add(root, list, setup.body, ParsePattern); err != nil {
						t.Fatalf("%s: %v", setup.line, err)
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
				g, err := New(Options{Root: root, Specs: set, Commands: cmds, Untrusted: ex.untrusted, OS: ex.os, Compose: true})
				if err != nil {
					t.Fatal(err)
				}
				res := g.Check(ex.body, ex.dir)
				if res.Rule != r.Rule {
					t.Errorf("`%s` gives rule %q (%s: %s), but the docs show it under %q", ex.line, res.Rule, res.Decision, res.Reason, r.Rule)
				}
				if !strings.Contains(" "+r.Decision+" ", " "+string(res.Decision)+" ") {
					t.Errorf("`%s` decides %s; rule %q gives %s", ex.line, res.Decision, r.Rule, r.Decision)
				}
			})
		}
	}
}
