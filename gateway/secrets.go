package gateway

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/clada/clada/specs"
)

// RuleSecret asks about a command the rules would allow when one of its
// path arguments is a file that commonly holds a secret: keys, tokens and
// passwords are not read, copied or shown without the person knowing.
const RuleSecret = "secret-file"

// DefaultSecrets are the file name patterns whose reading is asked, in
// path.Match syntax, compared without regard to case. A pattern without
// "/" matches a file's name anywhere in the project, one with "/" the end
// of its path (".git/config" is the repository's configuration, which may
// hold credentials in remote URLs). config.toml's secrets = [...] adds to
// them. Keep in step with docs/rules.md and the README.
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
		v.Decision, v.Rule, v.Word = Ask, RuleSecret, p.Arg
		v.Why = fmt.Sprintf("`%s` is a file that usually holds secrets (it matches %q)", p.Arg, pattern)
		if rel, ok := relInside(g.Root(), p.Resolved); ok && path.Base(rel) != path.Base(filepath.ToSlash(p.Arg)) {
			v.Why = fmt.Sprintf("`%s` leads to %s, a file that usually holds secrets (it matches %q)", p.Arg, rel, pattern)
		}
		v.Reason = v.Why + ", so the person must approve reading it"
		v.Advice = "leave secrets alone unless the task needs them; the person is asked (the list is DefaultSecrets plus secrets = [...] in .clada/config.toml)"
		return v
	}
	return v
}

// matchSecret reports the first secrets pattern that p matches.
func (g *Gateway) matchSecret(p specs.Path) (string, bool) {
	var names []string // candidate names: base names and path suffixes
	add := func(s string) {
		s = strings.ToLower(filepath.ToSlash(s))
		names = append(names, s)
	}
	add(p.Arg)
	if rel, ok := relInside(g.Root(), p.Resolved); ok {
		add(rel)
	}
	for i, lp := range g.secrets {
		for _, n := range names {
			if secretMatch(lp, n) {
				if i < len(DefaultSecrets) {
					return DefaultSecrets[i], true
				}
				return g.opts.Secrets[i-len(DefaultSecrets)], true
			}
		}
	}
	return "", false
}

// secretPatterns is DefaultSecrets and extra, lower case.
func secretPatterns(extra []string) []string {
	out := make([]string, 0, len(DefaultSecrets)+len(extra))
	for _, p := range append(DefaultSecrets[:len(DefaultSecrets):len(DefaultSecrets)], extra...) {
		out = append(out, strings.ToLower(p))
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
