package gateway

import (
	"fmt"
	"strings"

	"github.com/clada/clada/approve"
)

// RulePatternWord marks an ask that a prefix pattern would have allowed,
// had a word its * stands for stayed inside the project.
const RulePatternWord = "pattern-word"

// consent applies the user's allowed patterns to v, an ask for argv run
// in absDir (DESIGN.md §3: a pattern is consent, not exemption). Only an
// ask is ever turned into an allow; a deny stays a deny. An exact
// pattern, which the person saw whole, allows. A prefix pattern allows
// unless one of the words its * stands for resolves outside the root or
// into .git/ or .clada/ (then the person is asked, and told which word),
// and it never covers a command that destroys what git cannot restore.
func (g *Gateway) consent(argv []string, absDir string, v Verdict) Verdict {
	p, ok := matchAllowed(g.opts.Commands.Allowed, argv)
	if !ok {
		return v
	}
	if p.Prefix {
		if len(v.Lost) > 0 {
			v.Why += fmt.Sprintf("; the pattern `%s` does not cover destroying what git cannot restore", p.Text)
			return v
		}
		if word, why := g.screen(argv[len(p.Argv)-1:], absDir); word != "" {
			v.Rule, v.Word = RulePatternWord, word
			v.Why = fmt.Sprintf("the pattern `%s` covers this command, but %s", p.Text, why)
			v.Reason = v.Why + ", so the person must approve it"
			v.Advice = "use paths inside the project, or wait for the person to approve"
			return v
		}
	}
	v.Decision, v.Rule, v.Word, v.Advice, v.Why = Allow, RuleAllowedPattern, "", "", ""
	v.Reason = fmt.Sprintf("allowed by the pattern `%s` in %s", p.Text, g.opts.Commands.Path)
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
// path whole, after its first "=" (--out=/x, CFLAGS=-I/x), and after a
// one-letter option it is glued to (-o/x, -I../x).
func (g *Gateway) screen(words []string, absDir string) (word, why string) {
	for _, w := range words {
		for _, c := range screenCandidates(w, 0) {
			if _, err := g.resolver.Confine(absDir, c, true); err != nil {
				return w, fmt.Sprintf("`%s`: %v", w, err)
			}
		}
	}
	return "", ""
}

func screenCandidates(w string, depth int) []string {
	if w == "" || depth > 2 {
		return nil
	}
	out := []string{w}
	if _, val, ok := strings.Cut(w, "="); ok {
		out = append(out, screenCandidates(val, depth+1)...)
	}
	if len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.ContainsRune("/.~", rune(w[2])) {
		out = append(out, screenCandidates(w[2:], depth+1)...)
	}
	return out
}
