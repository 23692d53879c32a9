package guide

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// defaults is the Input of a project with clada's defaults.
func defaults(t *testing.T) Input {
	t.Helper()
	set, err := specs.Default()
	if err != nil {
		t.Fatal(err)
	}
	return Input{Programs: set.Names(), Git: gitrules.Subcommands()}
}

// TestTextShort: the instructions stay under 60 lines, also with every
// optional line present.
func TestTextShort(t *testing.T) {
	t.Parallel()
	in := defaults(t)
	in.Untrusted = true
	for i := range 30 {
		in.Allowed = append(in.Allowed, fmt.Sprintf("make target%d", i))
	}
	in.Base = "sub/dir"
	if n := strings.Count(Text(in), "\n"); n >= 60 {
		t.Errorf("the instructions have %d lines; keep them under 60", n)
	}
}

// TestTextRules: every refusal rule is there with its advice, and every
// rule that asks is named where the text says what needs a person.
func TestTextRules(t *testing.T) {
	t.Parallel()
	text := Text(defaults(t))
	needs := text[strings.Index(text, "Everything else needs a person"):]
	for _, r := range rules.All() {
		switch {
		case r.Rule == rules.Error:
			if strings.Contains(text, "- error:") {
				t.Errorf("the instructions list the internal rule error")
			}
		case r.Decision == "deny" && shellRules[r.Rule]:
			if !strings.Contains(text, "- "+ShellLine+": no shell") || strings.Contains(text, "- "+string(r.Rule)+": ") {
				t.Errorf("without compose, %s is not in the one line of shell rules", r.Rule)
			}
		case r.Decision == "deny":
			want := fmt.Sprintf("- %s: %s. Instead: %s.\n", r.Rule, r.Trigger, r.Advice)
			if Applies(defaults(t), r.Rule) != strings.Contains(text, want) {
				t.Errorf("refusal %s: listed %v, applies here %v", r.Rule, strings.Contains(text, want), Applies(defaults(t), r.Rule))
			}
		case strings.Contains(r.Decision, "ask"):
			if !strings.Contains(needs, string(r.Rule)) {
				t.Errorf("the instructions do not name %s among what needs a person", r.Rule)
			}
		}
	}
}

// TestTextConfig: what the text says follows the project.
func TestTextConfig(t *testing.T) {
	t.Parallel()
	in := defaults(t)
	plain := Text(in)
	for _, want := range []string{"It runs in the project root;", "may run 60s", "cut at 10 MB", "cat, chmod,", "git, read-only: bisect log, blame, branch,"} {
		if !strings.Contains(plain, want) {
			t.Errorf("default instructions lack %q", want)
		}
	}
	for _, notWant := range []string{"Untrusted", "Allowed by the person"} {
		if strings.Contains(plain, notWant) {
			t.Errorf("default instructions say %q", notWant)
		}
	}
	in.Untrusted = true
	in.Timeout, in.MaxOutput = 5*time.Minute, 512<<10
	in.Base = "web"
	for i := range maxAllowed + 3 {
		in.Allowed = append(in.Allowed, fmt.Sprintf("npm run t%d", i))
	}
	got := Text(in)
	for _, want := range []string{"Untrusted mode is on", "may run 5m", "cut at 512 KiB", "It runs in web/ in the project;",
		"`npm run t0`", fmt.Sprintf("`npm run t%d` and 3 more.", maxAllowed-1)} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, fmt.Sprintf("`npm run t%d`", maxAllowed)) {
		t.Errorf("instructions list more than %d allowed patterns", maxAllowed)
	}
}

// TestTextExample: read as a CSL document, the instructions hold exactly
// their example, git status, and nothing malformed: the indented and
// inline markers are prose.
func TestTextExample(t *testing.T) {
	t.Parallel()
	doc, err := parser.Blocks("prompt", strings.NewReader(Text(defaults(t))))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.OK() || len(doc.Warnings) > 0 || len(doc.Blocks) != 1 {
		t.Fatalf("the instructions as CSL: %d blocks, fatal %v, errors %v, warnings %v", len(doc.Blocks), doc.Fatal, doc.Errors, doc.Warnings)
	}
	if got := doc.Blocks[0].Argv; !cmp.Equal(got, []string{"git", "status"}) {
		t.Errorf("example argv = %q", got)
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		60 * time.Second: "60s", 2 * time.Minute: "120s", 5 * time.Minute: "5m", 90 * time.Minute: "90m",
		24 * time.Hour: "24h", 1500 * time.Millisecond: "2s", 150 * time.Second: "2m30s",
	} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// The model learns that a command may be refused by the sandbox, and that
// working around it is not its call.
func TestTextSandbox(t *testing.T) {
	t.Parallel()
	text := Text(defaults(t))
	for _, want := range []string{"runs in a sandbox", "never .git/ or .clada/", "no\nnetwork unless its spec grants it", "`sandbox: …`", "do not work around it"} {
		if !strings.Contains(text, want) {
			t.Errorf("the instructions do not say %q", want)
		}
	}
}

// TestTextAppliesHere: rules of another system and of compositions are
// left out where they cannot apply, and listed where they can.
func TestTextAppliesHere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		os      string
		compose bool
		in, out []string
	}{
		{"linux", false, []string{"- " + ShellLine + ": no shell", "- hard-block:", "- unknown-flag:"},
			[]string{"- backslash:", "- option-after-operand:", "- redirect-target:", "- cd:", "- glob:"}},
		{"windows", false, []string{"- backslash:"}, []string{"- option-after-operand:"}},
		{"darwin", true, []string{"- option-after-operand:", "- redirect-target:", "- cd:", "- glob:", "- shell-syntax:"},
			[]string{"- backslash:", ShellLine}},
	} {
		in := defaults(t)
		in.OS, in.Compose = c.os, c.compose
		text := Text(in)
		for _, w := range c.in {
			if !strings.Contains(text, w) {
				t.Errorf("%s compose=%v: lacks %q", c.os, c.compose, w)
			}
		}
		for _, w := range c.out {
			if strings.Contains(text, w) {
				t.Errorf("%s compose=%v: has %q", c.os, c.compose, w)
			}
		}
	}
}

// TestTextInstalledOnly: programs and runners that are not installed
// here are left out of the lists.
func TestTextInstalledOnly(t *testing.T) {
	t.Parallel()
	in := Input{Programs: []string{"cat", "go (doc, env)", "rg"}, Runners: []string{"cargo build", "go test", "python3 -m pytest"}}
	in.Installed = func(name string) bool { return name == "cat" || name == "go" || name == "python3" }
	text := Text(in)
	for _, want := range []string{"  cat, go (doc, env).", "checked: go test, python3 -m pytest."} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	for _, notWant := range []string{", rg", "cargo"} {
		if strings.Contains(text, notWant) {
			t.Errorf("lists %q, which is not installed:\n%s", notWant, text)
		}
	}
	in.Installed = func(string) bool { return false }
	if text := Text(in); strings.Contains(text, "Run without asking") || strings.Contains(text, "Project runners") {
		t.Errorf("empty lists are still introduced:\n%s", text)
	}
}
