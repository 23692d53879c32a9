package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// consent applies the user's allowed patterns to v, an ask for argv run
// in absDir (docs/rules.md: a pattern is consent, not exemption). Only an
// ask is ever turned into an allow; a deny stays a deny. An exact
// pattern, which the person saw whole, allows. A prefix pattern allows
// unless one of the words its * stands for resolves outside the root or
// into .git/ or .clada/ (then the person is asked, and told which word),
// it never covers a command that destroys what git cannot restore, nor
// the commands find -exec runs.
func (g *Gateway) consent(argv []string, absDir string, v Verdict) Verdict {
	p, ok := matchAllowed(g.opts.Commands.AllowedPatterns(), argv)
	if !ok {
		return v
	}
	if p.Prefix {
		if len(v.Lost) > 0 {
			v.Why += fmt.Sprintf("; the pattern `%s` does not cover destroying what git cannot restore", p.Text)
			return v
		}
		if len(v.Inner) > 0 {
			// find -exec runs its command on every file found, and a
			// found file may be a symlink out of the project: clada
			// checked the command once, not on each file.
			v.Why += fmt.Sprintf("; the pattern `%s` does not cover the commands find -exec runs (only an exact pattern does)", p.Text)
			return v
		}
		if len(v.Outside) > 0 {
			// A read outside the project is the person's to see each
			// time: a pattern the person wrote once covers only the
			// exact command (docs/rules.md, read-outside).
			v.Why += fmt.Sprintf("; the pattern `%s` does not cover reading %s outside the project (only an exact pattern does)", p.Text, v.Outside[0].Arg)
			v.Reason = v.Why + ", so the person must approve it"
			return v
		}
		if word, why := g.screen(argv[len(p.Argv)-1:], absDir); word != "" {
			v.Rule, v.Word = rules.PatternWord, word
			v.Why = fmt.Sprintf("the pattern `%s` covers this command, but %s", p.Text, why)
			v.Reason = v.Why + ", so the person must approve it"
			v.Advice = "use paths inside the project, or wait for the person to approve"
			return v
		}
	}
	v.Decision, v.Rule, v.Word, v.Advice, v.Why, v.Lost = Allow, rules.AllowedPattern, "", "", "", nil
	v.HostPattern = p.Text
	v.Reason = fmt.Sprintf("allowed by the pattern `%s` in %s", p.Text, patternSource(p, g.opts.Commands))
	return v
}

// matchAllowed returns the exact pattern equal to argv, else the first
// prefix pattern that matches it.
func matchAllowed(ps []approve.Pattern, argv []string) (approve.Pattern, bool) {
	for _, p := range ps {
		if !p.Prefix && p.Match(argv) {
			return p, true
		}
	}
	for _, p := range ps {
		if p.Prefix && p.Match(argv) {
			return p, true
		}
	}
	return approve.Pattern{}, false
}

// screen returns the first of words that reaches outside the root or
// into .git/ or .clada/, and why; "" when none does. A word is read as a
// path whole, after each "=" or "," in it (--out=/x, CFLAGS=-I/x,
// --mount=type=bind,source=/), after a leading "@" (curl -d @/etc/passwd)
// or "file://", and after a one-letter option it is glued to (-o/x,
// -I../x).
func (g *Gateway) screen(words []string, absDir string) (word, why string) {
	for _, w := range words {
		cands, ok := screenCandidates(w)
		if !ok {
			return w, fmt.Sprintf("`%s` has too many \"=\" and \",\" for clada to check every path in it", w)
		}
		for _, c := range cands {
			if _, err := g.resolver.Confine(absDir, c, true); err != nil {
				if c != w {
					return w, fmt.Sprintf("in `%s`, %v", w, err)
				}
				return w, err.Error()
			}
		}
	}
	return "", ""
}

// maxCandidates bounds the readings of one word; a word with more "=" and
// "," than that is not checked but asked (ok false).
const maxCandidates = 32

func screenCandidates(w string) (cands []string, ok bool) {
	parts := []string{w}
	for i := 0; i < len(w); i++ {
		if (w[i] == '=' || w[i] == ',') && i+1 < len(w) {
			if len(parts) == maxCandidates {
				return nil, false
			}
			parts = append(parts, w[i+1:])
		}
	}
	out := make([]string, 0, 2*len(parts))
	for _, c := range parts {
		out = append(out, c)
		for {
			switch {
			case strings.HasPrefix(c, "@"):
				c = c[1:]
			case strings.HasPrefix(c, "file://"):
				c = c[len("file://"):]
			case len(c) > 2 && c[0] == '-' && c[1] != '-' && strings.ContainsRune("/.~", rune(c[2])):
				c = c[2:]
			default:
				c = ""
			}
			if c == "" {
				break
			}
			out = append(out, c)
		}
	}
	return out, true
}

// isSubcommand reports whether w reads as a subcommand (go test, npm run,
// git commit, make build), never as a path, an option or a value: a
// lower-case letter, then lower-case letters, digits, "_", ":" and "-".
func isSubcommand(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if c := w[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// prefixFor returns the program-and-subcommand prefix pattern that the
// prompt offers besides the exact command (`go test ./...` → `go test *`),
// or "" when none fits: the program must be a bare name that does not run
// other programs (no `python *`), the second word must read as a
// subcommand and name no file, and the pattern must cover this very
// command (no word of it screened, nothing destroyed that git cannot
// restore).
func (g *Gateway) prefixFor(r *Result) string {
	argv := r.Argv
	if len(argv) < 2 || strings.ContainsAny(argv[0], `/\`) || specs.RunsPrograms(argv[0]) ||
		!isSubcommand(argv[1]) || len(r.Lost) > 0 || r.Rule == rules.PatternWord {
		return ""
	}
	dir := r.Dir
	if dir == "" {
		dir = g.Root()
	}
	if _, err := os.Lstat(filepath.Join(dir, argv[1])); err == nil {
		return ""
	}
	if word, _ := g.screen(argv[2:], dir); word != "" {
		return ""
	}
	return parser.Quote(argv[:2]) + " *"
}

// PatternError is a pattern that `clada allow` refuses because it could
// never allow anything: a hard block denies every command it matches.
type PatternError struct {
	Pattern string // as written
	// Denied is the hard block's denial (rule, offending word, reason),
	// with advice that says why the pattern cannot help.
	rules.Denied
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("the pattern `%s` would allow nothing: %s (rule %s, `%s`)", e.Pattern, e.Reason, e.Rule, e.Word)
}

// CheckAllowPattern returns a *PatternError when the pattern text, to be
// added to the allowed list of the project at root, matches only commands
// a hard block denies (`sudo *`, `env sudo *`, `rm -rf /`): allowing it
// would mislead the person, since a pattern never turns a deny into allow.
// It returns nil for anything else, including text that does not parse
// (adding it reports that).
func CheckAllowPattern(root, text string) error {
	p, err := approve.ParsePattern(text, ParsePattern)
	if err != nil {
		return nil
	}
	argv := p.Argv
	if p.Prefix {
		argv = argv[:len(argv)-1]
	}
	r, err := specs.NewResolver(root)
	dir := root
	if err == nil {
		dir = r.Root()
	} else {
		r = nil
	}
	d := specs.HardBlock(argv, dir, r)
	if d == nil {
		return nil
	}
	return &PatternError{Pattern: strings.TrimSpace(text), Denied: rules.Denied{Rule: d.Rule, Word: d.Word, Reason: d.Reason,
		Advice: "hard blocks deny whatever the patterns say; " + d.Advice}}
}

// patternSource is the file p was read from: its own, which may be
// another scope's (the managed or the user's commands.toml), else cmds'.
func patternSource(p approve.Pattern, cmds *approve.Commands) string {
	if p.Source != "" {
		return p.Source
	}
	return cmds.Path
}
