package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/specs"
)

// checkSpecs is specs.Check, collecting the reads outside the root that
// the check accepted instead of refusing them.
func (g *Gateway) checkSpecs(argv []string, absDir string) (specs.Verdict, []specs.Path) {
	g.resolver.CollectOutsideReads()
	sv := g.opts.Specs.Check(argv, absDir, g.resolver)
	return sv, g.resolver.OutsideReads()
}

// readOutside applies reads, the paths outside the project that who (the
// program, or a redirection, as the person reads it) reads, to v: a read of a credential store or a secret file is
// refused as before; otherwise an allow becomes ask (rule read-outside)
// and an ask says the reads too. Only an exact pattern consents to such
// a command (consent, Verdict.Outside).
func (g *Gateway) readOutside(who string, v Verdict, reads []specs.Path) Verdict {
	if len(reads) == 0 || v.Decision == Deny {
		return v
	}
	return g.outsideChecked(who, v, reads, reads)
}

// outsideChecked is readOutside, where touched are every path the
// command opens: those outside the root (in a granted directory, or
// among reads) may not be a credential store or a secret file, whoever
// granted the directory.
func (g *Gateway) outsideChecked(who string, v Verdict, reads, touched []specs.Path) Verdict {
	if v.Decision == Deny {
		return v
	}
	for _, p := range touched {
		if _, in := relInside(g.Root(), p.Resolved); in {
			continue
		}
		// A secret in a granted directory is asked as in the project
		// (secret-file, already applied); outside both, it is refused.
		if why := g.forbiddenRead(p, slices.Contains(reads, p)); why != "" {
			return Verdict{Decision: Deny, Rule: rules.PathOutsideRoot, Word: p.Arg, Dir: v.Dir,
				Reason: why,
				Advice: "leave credentials alone; if the task needs the file, the person copies what is needed into the project"}
		}
	}
	if len(reads) == 0 {
		return v
	}
	shown := make([]string, len(reads))
	for i, p := range reads {
		shown[i] = p.Resolved
		if p.Arg != p.Resolved {
			shown[i] = fmt.Sprintf("%s (%s)", p.Arg, p.Resolved)
		}
	}
	what := strings.Join(shown, ", ")
	v.Outside = append(v.Outside, reads...)
	if v.Decision == Allow {
		v.Decision, v.Rule, v.Word = Ask, rules.ReadOutside, reads[0].Arg
		v.Why = fmt.Sprintf("`%s` reads %s, outside the project", who, what)
		v.Reason = v.Why + ", so the person must approve it"
		v.Advice = "read files inside the project when you can; otherwise wait for the person to approve this read (a person who wants it for good grants the directory: dirs in .clada/config.toml)"
		return v
	}
	v.Why += fmt.Sprintf("; it also reads %s, outside the project", what)
	v.Reason = v.Why + ", so the person must approve it"
	return v
}

// forbiddenRead says why p, outside the project, may not be read even
// with the person's yes, or "": a credential store under the home
// directory (which the sandbox hides from every command, wherever the
// person granted), or, when secrets is set (a read outside every granted
// directory), a file the secrets rule names.
func (g *Gateway) forbiddenRead(p specs.Path, secrets bool) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, store := range sandbox.CredentialPaths(home) {
			if _, in := relInside(store, p.Resolved); in {
				return fmt.Sprintf("%s is in %s, a credential store outside the project, which no command clada runs may read", p.Arg, store)
			}
		}
	}
	for _, s := range systemSecrets {
		_, in := relInside(s, p.Resolved)
		if match, _ := filepath.Match(s, p.Resolved); in || match {
			return fmt.Sprintf("%s holds the system's secrets (%s), which no command clada runs may read", p.Arg, s)
		}
	}
	if pattern, ok := g.matchSecret(p); ok && secrets {
		return fmt.Sprintf("%s is outside the project and usually holds secrets (it matches %q)", p.Arg, pattern)
	}
	return ""
}

// systemSecrets are files and directories outside every home directory
// that hold the machine's secrets (password hashes, host keys, TLS private
// keys, sudo rules, a process's environment), in filepath.Match syntax:
// a command clada runs could read them, and no person's yes makes them a
// model's to read.
var systemSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/master.passwd", "/etc/spwd.db",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_*_key", "/etc/ssl/private",
	"/root/.ssh", "/root/.aws", "/root/.gnupg", "/root/.netrc", "/root/.docker/config.json",
	"/var/lib/sss", "/etc/krb5.keytab",
	// A process's environment and memory: the tokens the person exported.
	"/proc/*/environ", "/proc/*/mem", "/proc/*/task/*/environ", "/proc/*/task/*/mem", "/proc/kcore",
}

// runsCodeOutside refuses a command its spec asks about (it runs code: a
// build tool, a linter that loads plugins and configuration) that names
// p, a path outside the project: a configuration, plugin or project
// there is code the person has not seen, whatever the question would
// say. Reads outside are asked only of commands the rules would allow.
func (g *Gateway) runsCodeOutside(argv []string, absDir string, v Verdict, p specs.Path) Verdict {
	return Verdict{Decision: Deny, Rule: rules.PathOutsideRoot, Word: p.Arg, Dir: absDir,
		Reason: fmt.Sprintf("%s is outside the project, and `%s` runs code (%s): what it loads from there is code nobody checked", p.Arg, argv[0], v.Reason),
		Advice: "keep the configuration, plugins and projects the command uses inside the project"}
}
