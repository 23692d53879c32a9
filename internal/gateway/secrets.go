package gateway

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// DefaultSecrets are the file name patterns whose reading is asked, in
// path.Match syntax, compared without regard to case. A pattern without
// "/" matches a file's name anywhere in the project, one with "/" the end
// of its path (".git/config" is the repository's configuration, which may
// hold credentials in remote URLs). config.toml's secrets = [...] adds to
// them. Keep in step with docs/rules.md and docs/usage.md.
var DefaultSecrets = []string{
	".env", ".env.*", "*.pem", "*.key",
	"id_rsa*", "id_ed25519*", "id_ecdsa*", "id_dsa*",
	".netrc", "_netrc", ".npmrc", ".pypirc", ".git/config",
}

// secret turns an allow into ask when a path the command opens matches a
// secrets pattern, as written or after resolving symlinks (cat link, where
// link points to .env). Reads are what the rule is for, and writes count
// too: cp .env x and mv .env x make the secret readable under another
// name. A directory given to a recursive command (grep -r x .) is not
// looked into.
func (g *Gateway) secret(v Verdict, paths []specs.Path) Verdict {
	if v.Decision != Allow {
		return v
	}
	for _, p := range paths {
		pattern, ok := g.matchSecret(p)
		if !ok {
			continue
		}
		v.Decision, v.Rule, v.Word = Ask, rules.Secret, p.Arg
		v.Why = fmt.Sprintf("`%s` is a file that usually holds secrets (it matches %q)", p.Arg, pattern)
		if rel, ok := relInside(g.Root(), p.Resolved); ok && path.Base(rel) != path.Base(filepath.ToSlash(p.Arg)) {
			v.Why = fmt.Sprintf("`%s` leads to %s, a file that usually holds secrets (it matches %q)", p.Arg, rel, pattern)
		}
		v.Reason = v.Why + ", so the person must approve reading it"
		v.Advice = "leave secrets alone unless the task needs them; the person is asked (the list is clada's built-in one in docs/rules.md, such as .env, *.pem and id_rsa, plus secrets = [...] in .clada/config.toml)"
		return v
	}
	return v
}

// matchSecret reports the first secrets pattern that p matches.
func (g *Gateway) matchSecret(p specs.Path) (string, bool) {
	var buf [2]secretName // candidate names: as written and inside the root
	names := append(buf[:0], newSecretName(p.Arg))
	if rel, ok := relInside(g.Root(), p.Resolved); ok {
		names = append(names, newSecretName(rel))
	}
	for i, m := range g.secrets {
		for _, n := range names {
			if m.match(n) {
				if i < len(DefaultSecrets) {
					return DefaultSecrets[i], true
				}
				return g.opts.Secrets[i-len(DefaultSecrets)], true
			}
		}
	}
	return "", false
}

// secretName is a candidate path for the secrets patterns: lower case,
// slash-separated, trailing slashes removed, with its base name.
type secretName struct{ name, base string }

func newSecretName(s string) secretName {
	s = strings.TrimRight(strings.ToLower(filepath.ToSlash(s)), "/")
	return secretName{name: s, base: path.Base(s)}
}

// secretMatcher is one secrets pattern, compiled: the common shapes
// (a literal name, name*, *suffix, a literal path) are string compares,
// the rest path.Match. Every pattern decides exactly as secretMatch
// (FuzzSecretMatcher compares them), only cheaper: this check runs for
// every path of every allowed command.
type secretMatcher struct {
	pattern string // lower case
	kind    int
	lit     string // the literal part for the string-compare kinds
}

const (
	secretGlob       = iota // anything else: secretMatch
	secretLiteral           // no "/", no metacharacter: the base name equals lit
	secretPrefix            // lit + "*", lit without "/" or metacharacters
	secretSuffix            // "*" + lit, likewise
	secretLiteralDir        // a literal with "/": the cleaned path is lit or ends in "/"+lit
)

func compileSecret(pattern string) secretMatcher {
	m := secretMatcher{pattern: pattern}
	plain := func(s string) bool { return s != "" && !strings.ContainsAny(s, `*?[\/`) }
	switch {
	case plain(pattern):
		m.kind, m.lit = secretLiteral, pattern
	case strings.HasSuffix(pattern, "*") && plain(pattern[:len(pattern)-1]):
		m.kind, m.lit = secretPrefix, pattern[:len(pattern)-1]
	case strings.HasPrefix(pattern, "*") && plain(pattern[1:]):
		m.kind, m.lit = secretSuffix, pattern[1:]
	case strings.Contains(pattern, "/") && !strings.ContainsAny(pattern, `*?[\`) && path.Clean(pattern) == pattern &&
		!strings.HasPrefix(pattern, "/"):
		m.kind, m.lit = secretLiteralDir, pattern
	}
	return m
}

func (m secretMatcher) match(n secretName) bool {
	switch m.kind {
	case secretLiteral:
		return n.base == m.lit
	case secretPrefix:
		// "*" matches no "/"; a base name holds one only when it is "/".
		return strings.HasPrefix(n.base, m.lit) && n.base != "/"
	case secretSuffix:
		return strings.HasSuffix(n.base, m.lit) && n.base != "/"
	case secretLiteralDir:
		c := path.Clean(n.name) // no allocation when already clean
		return c == m.lit || strings.HasSuffix(c, "/"+m.lit)
	}
	return secretMatch(m.pattern, n.name)
}

// secretPatterns compiles DefaultSecrets and extra, lower case.
func secretPatterns(extra []string) []secretMatcher {
	out := make([]secretMatcher, 0, len(DefaultSecrets)+len(extra))
	for _, p := range append(DefaultSecrets[:len(DefaultSecrets):len(DefaultSecrets)], extra...) {
		out = append(out, compileSecret(strings.ToLower(p)))
	}
	return out
}

// secretMatch matches pattern against name (both lower case and
// slash-separated): against its base name when the pattern has no "/",
// else against every trailing run of its components.
func secretMatch(pattern, name string) bool {
	name = strings.TrimRight(name, "/")
	if !strings.Contains(pattern, "/") {
		ok, _ := path.Match(pattern, path.Base(name))
		return ok
	}
	name = path.Clean(name)
	for {
		if ok, _ := path.Match(pattern, name); ok {
			return true
		}
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[i+1:]
	}
}
