package gitrules

import (
	"fmt"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// dispatch maps subcommands whose first word selects a mode (git remote
// add, git reflog expire) to their checks. Keep sorted; update docs/rules.md too.
var dispatch = map[string]func(args []string) Verdict{
	"bisect":       checkBisect,
	"config":       checkConfig,
	"hash-object":  checkHashObject,
	"notes":        checkNotes,
	"reflog":       checkReflog,
	"remote":       checkRemote,
	"stash":        checkStash,
	"symbolic-ref": checkSymbolicRef,
	"version":      checkVersion,
	"worktree":     checkWorktree,
}

// ConfigRead says which configuration values a git command prints (git
// config --get, git remote -v), so that the caller can look at them and ask
// when one may hold a credential: gitrules reads no files. An entry may
// hold a credential when its section is credential, it is an
// http.[<url>.]extraheader, its key names a password, token or secret, or
// its name or value is a URL with a user-info part that carries one
// (https://user:pw@host, https://token@host).
type ConfigRead struct {
	All       bool     // every entry of the files read (git config --list)
	Names     []string // exact names whose values are printed, as written (remote.origin.url)
	Regexps   []string // regular expressions on names (git config --get-regexp); matched case-insensitively
	Scope     string   // "" (global and local, as git reads them), "local", "global", "system", "worktree" or "file"
	File      string   // for Scope "file": the file named by --file (also in Paths)
	NamesOnly bool     // only names are printed (--name-only): the values do not matter
}

// remoteURLs are the names whose values git remote -v and get-url print:
// remote URLs, and url.<base>.insteadOf rewrites, whose <base> is what git
// shows in their place.
var remoteURLs = []string{`^remote\..*\.(url|pushurl)$`, `^url\..*\.(insteadof|pushinsteadof)$`}

// checkReflog: git reflog [show] takes log options; list and exists read;
// expire and delete change the reflog.
func checkReflog(args []string) Verdict {
	if len(args) > 0 {
		switch w := args[0]; w {
		case "show":
			return reflogShowTable.get().check(args[1:])
		case "list":
			if len(args) == 1 {
				return Verdict{Outcome: Allow, Subcommand: "reflog list"}
			}
			return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: args[1], Subcommand: "reflog list",
				Reason: "git reflog list takes no arguments", Advice: "write git reflog list"}
		case "exists":
			if len(args) == 2 && !strings.HasPrefix(args[1], "-") {
				return Verdict{Outcome: Allow, Subcommand: "reflog exists"}
			}
			return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: w, Subcommand: "reflog exists",
				Reason: "git reflog exists takes one ref", Advice: "write git reflog exists <ref>"}
		case "expire", "delete", "drop":
			return askForm("reflog", w, args[1:], "deletes reflog entries", "git reflog, git reflog show <ref>")
		}
	}
	return reflogShowTable.get().check(args)
}

// checkRemote: listing remotes and their URLs reads; show without -n
// contacts the remote; the rest changes the configuration.
func checkRemote(args []string) Verdict {
	i, verbose := 0, false
	for ; i < len(args) && (args[i] == "-v" || args[i] == "--verbose"); i++ {
		verbose = true
	}
	if i == len(args) {
		v := Verdict{Outcome: Allow, Subcommand: "remote"}
		if verbose {
			v.Config = &ConfigRead{Regexps: remoteURLs}
		}
		return v
	}
	w, rest := args[i], args[i+1:]
	if strings.HasPrefix(w, "-") {
		return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: w, Subcommand: "remote",
			Reason: fmt.Sprintf("%s is not a git remote option clada allows", w),
			Advice: "list remotes with git remote -v, or git remote get-url <name>"}
	}
	const reads = "git remote -v, git remote get-url <name>, git remote show -n <name>"
	switch w {
	case "get-url":
		var names []string
		for _, a := range rest {
			switch {
			case a == "--push" || a == "--all":
			case strings.HasPrefix(a, "-"):
				return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: a, Subcommand: "remote get-url",
					Reason: fmt.Sprintf("%s is not a git remote get-url option", a), Advice: "write git remote get-url [--push] [--all] <name>"}
			default:
				names = append(names, a)
			}
		}
		if len(names) != 1 {
			return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: "get-url", Subcommand: "remote get-url",
				Reason: "git remote get-url takes one remote name", Advice: "write git remote get-url <name>"}
		}
		return Verdict{Outcome: Allow, Subcommand: "remote get-url",
			Config: &ConfigRead{Names: []string{"remote." + names[0] + ".url", "remote." + names[0] + ".pushurl"}, Regexps: remoteURLs[1:]}}
	case "show":
		offline := false
		for _, a := range rest {
			switch {
			case a == "-n":
				offline = true
			case strings.HasPrefix(a, "-"):
				return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: a, Subcommand: "remote show",
					Reason: fmt.Sprintf("%s is not a git remote show option", a), Advice: "write git remote show -n <name>"}
			}
		}
		if offline {
			return Verdict{Outcome: Allow, Subcommand: "remote show", Config: &ConfigRead{Regexps: remoteURLs}}
		}
		return askForm("remote", w, rest, "contacts the network", "git remote show -n <name>, which stays offline")
	case "update", "prune":
		return askForm("remote", w, rest, "contacts the network", reads)
	}
	return askForm("remote", w, rest, "changes the remotes in git configuration", reads)
}

// checkWorktree: list reads; the rest adds, moves or removes worktrees.
func checkWorktree(args []string) Verdict {
	if len(args) > 0 && args[0] == "list" {
		return worktreeListTable.get().check(args[1:])
	}
	w, rest := "worktree", args
	if len(args) > 0 {
		w, rest = args[0], args[1:]
	}
	return askForm("worktree", w, rest, "adds, moves, removes or locks a worktree", "git worktree list")
}

// checkBisect: log and terms read; the rest checks out commits or runs
// programs.
func checkBisect(args []string) Verdict {
	if len(args) == 1 && args[0] == "log" {
		return Verdict{Outcome: Allow, Subcommand: "bisect log"}
	}
	if len(args) >= 1 && args[0] == "terms" && len(args) <= 2 &&
		(len(args) == 1 || args[1] == "--term-good" || args[1] == "--term-bad" || args[1] == "--term-old" || args[1] == "--term-new") {
		return Verdict{Outcome: Allow, Subcommand: "bisect terms"}
	}
	w, rest := "bisect", args
	if len(args) > 0 {
		w, rest = args[0], args[1:]
	}
	what := "changes the bisect state and checks out commits"
	switch w {
	case "run":
		what = "runs a program on each commit it checks out"
	case "visualize", "view":
		what = "starts gitk or git log with a pager"
	}
	return askForm("bisect", w, rest, what, "git bisect log, git bisect terms")
}

// checkNotes: git notes [--ref <ref>] [list|show] reads.
func checkNotes(args []string) Verdict {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "--ref") {
		if args[i] == "--ref" {
			i++
		}
		i++
	}
	if i > len(args) {
		return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: "--ref", Subcommand: "notes",
			Reason: "--ref needs a value", Advice: "write git notes --ref=<ref> list"}
	}
	rest := args[i:]
	if len(rest) == 0 {
		return Verdict{Outcome: Allow, Subcommand: "notes list"}
	}
	switch w := rest[0]; w {
	case "list", "show":
		if len(rest) <= 2 && (len(rest) == 1 || !strings.HasPrefix(rest[1], "-")) {
			return Verdict{Outcome: Allow, Subcommand: "notes " + w}
		}
		return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: rest[len(rest)-1], Subcommand: "notes " + w,
			Reason: fmt.Sprintf("git notes %s takes at most one object", w), Advice: fmt.Sprintf("write git notes %s [<object>]", w)}
	default:
		return askForm("notes", w, rest[1:], "changes notes", "git notes list, git notes show [<object>]")
	}
}

// checkSymbolicRef: one name reads it; a second word, -d or -m changes it.
func checkSymbolicRef(args []string) Verdict {
	var names []string
	for _, a := range args {
		switch a {
		case "-q", "--quiet", "--short", "--recurse", "--no-recurse":
		case "-d", "--delete", "-m":
			return askForm("symbolic-ref", a, nil, "changes a symbolic ref", "git symbolic-ref <name>")
		default:
			if strings.HasPrefix(a, "-") {
				return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: a, Subcommand: "symbolic-ref",
					Reason: fmt.Sprintf("%s is not a git symbolic-ref option clada allows", a),
					Advice: "write git symbolic-ref [--short] [-q] <name>"}
			}
			names = append(names, a)
		}
	}
	if len(names) > 1 {
		return askForm("symbolic-ref", names[0], nil, "points a symbolic ref elsewhere", "git symbolic-ref <name>")
	}
	return Verdict{Outcome: Allow, Subcommand: "symbolic-ref"}
}

// checkHashObject: hashing reads the files; -w writes the objects.
func checkHashObject(args []string) Verdict {
	v := hashObjectTable.get().check(args)
	return v
}

var hashObjectTable = &lazy{build: func() *table {
	return newTable("hash-object", map[string]opt{
		"literally": b(), "no-filters": b(), "path": v(), "stdin": b(), "stdin-paths": b(),
	}, map[byte]opt{'t': v(), 'w': asks(b(), "writes the objects into the repository")},
		"-t <type>, --no-filters, <file>")
}}

// checkVersion: git version [--build-options].
func checkVersion(args []string) Verdict {
	if len(args) == 0 || (len(args) == 1 && args[0] == "--build-options") {
		return Verdict{Outcome: Allow, Subcommand: "version"}
	}
	return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: args[0], Subcommand: "version",
		Reason: fmt.Sprintf("git version takes no argument %q", args[0]), Advice: "write git version"}
}

// configOpts are git config's options that are not actions; true when the
// option takes a value.
var configOpts = map[string]bool{
	"--global": false, "--system": false, "--local": false, "--worktree": false,
	"--file": true, "-f": true, "--blob": true, "--type": true, "-t": true,
	"--bool": false, "--int": false, "--bool-or-int": false, "--bool-or-str": false,
	"--path": false, "--expiry-date": false, "--null": false, "-z": false,
	"--name-only": false, "--includes": false, "--no-includes": false,
	"--show-origin": false, "--show-scope": false, "--default": true,
	"--fixed-value": false, "--all": false, "--regexp": false, "--url": true,
	"--value": true, "--show-names": false, "--no-show-names": false,
	"--no-type": false, "--no-value": false, "--no-url": false,
}

// configActions are git config's action options and whether they only read.
var configActions = map[string]bool{
	"--get": true, "--get-all": true, "--get-regexp": true, "--get-urlmatch": true,
	"--get-color": true, "--get-colorbool": true, "--list": true, "-l": true,
	"--add": false, "--replace-all": false, "--unset": false, "--unset-all": false,
	"--rename-section": false, "--remove-section": false, "--edit": false, "-e": false,
}

// checkConfig: reading values is allowed (the caller asks when one may
// hold a credential, see [ConfigRead]); every form that writes or edits
// the configuration is asked.
func checkConfig(args []string) Verdict {
	const reads = "git config --get <name>, git config --list, git config --get-regexp <regexp>"
	bad := func(arg, reason string) Verdict {
		return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: arg, Subcommand: "config", Reason: reason,
			Advice: "allowed without asking: " + reads}
	}
	write := func(arg string) Verdict {
		return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: arg, Subcommand: "config",
			Reason: "git config " + arg + " changes git configuration, which can name programs for git to run",
			Advice: "the person at the terminal is asked; allowed without asking: " + reads}
	}
	cr := &ConfigRead{}
	var action string
	var pos, paths []string
	// New-style subcommands (git 2.46): git config list|get|set|unset|...
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "list":
			action, args = "--list", args[1:]
		case "get":
			action, args = "--get", args[1:]
		case "set", "unset", "rename-section", "remove-section", "edit":
			return write(args[0])
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, eq := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") && len(a) > 2 {
			name, val, eq = a[:2], a[2:], true // -fFILE, -tbool
		}
		if ro, ok := configActions[name]; ok {
			if eq {
				return bad(a, name+" takes no value")
			}
			if !ro {
				return write(name)
			}
			if action != "" && action != name {
				return bad(a, fmt.Sprintf("git config takes one action, not %s and %s", action, name))
			}
			action = name
			continue
		}
		takes, ok := configOpts[name]
		if !ok {
			return bad(a, fmt.Sprintf("%s is not a git config option clada allows", name))
		}
		if takes && !eq {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return bad(a, name+" needs a value")
			}
			i++
			val = args[i]
		} else if !takes && eq {
			return bad(a, name+" takes no value")
		}
		switch name {
		case "--global", "--system", "--local", "--worktree":
			cr.Scope = name[2:]
		case "--file", "-f":
			cr.Scope, cr.File = "file", val
			paths = append(paths, val)
		case "--blob":
			return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: a, Subcommand: "config",
				Reason: "git config --blob reads configuration from a repository object clada cannot look into for credentials",
				Advice: "the person at the terminal is asked; allowed without asking: " + reads}
		case "--includes":
			// With --file (or a scope) git reads no includes unless told
			// to; told to, it reads whatever path an [include] of a
			// file the model wrote names, outside the project too, and
			// prints it as configuration.
			return Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: a, Subcommand: "config",
				Reason: "git config --includes follows the [include] paths of the file it reads, which may name any file outside the project, and prints that file as configuration",
				Advice: "read the file itself without --includes (git config --file F --list), or the configuration git uses (git config --list, which follows your own includes)"}
		case "--name-only":
			cr.NamesOnly = true
		case "--no-show-names":
		case "--regexp":
			if action == "--get" || action == "" {
				action = "--get-regexp"
			}
		case "--url":
			action = "--get-urlmatch"
			pos = append(pos, val)
		}
	}
	if action == "" {
		switch len(pos) {
		case 0:
			return bad("config", "git config needs an action or a name")
		case 1:
			action = "--get"
		default:
			return write(pos[0])
		}
	}
	switch action {
	case "--list", "-l":
		cr.All = true
		if len(pos) > 0 {
			return bad(pos[0], "git config --list takes no name")
		}
	case "--get", "--get-all":
		if len(pos) == 0 || len(pos) > 2 {
			return bad(action, "git config "+action+" takes a name and at most one value pattern")
		}
		if why := credentialName(pos[0]); why != "" {
			return askCredential(pos[0], why)
		}
		cr.Names = []string{pos[0]}
	case "--get-regexp":
		if len(pos) == 0 || len(pos) > 2 {
			return bad(action, "git config --get-regexp takes a name regexp and at most one value pattern")
		}
		cr.Regexps = []string{pos[0]}
	case "--get-urlmatch":
		if len(pos) != 2 {
			return bad(action, "git config --get-urlmatch takes a name and a URL")
		}
		sec, _, _ := strings.Cut(pos[0], ".")
		if s := strings.ToLower(sec); s == "credential" || s == "http" {
			return askCredential(pos[0], "the "+s+" settings for a URL may hold a credential")
		}
		cr.Regexps = []string{"^" + regexpQuote(sec) + `\.`}
	case "--get-color", "--get-colorbool":
		cr = nil // colours hold no credentials
	}
	return Verdict{Outcome: Allow, Subcommand: "config", Paths: paths, Config: cr}
}

// askCredential is the Ask for reading a configuration entry that may hold
// a credential.
func askCredential(name, why string) Verdict {
	return Verdict{Outcome: Ask, Rule: rules.GitSubcommand, Arg: name, Subcommand: "config",
		Reason: fmt.Sprintf("git config would print %s: %s", name, why),
		Advice: "the person at the terminal is asked; other configuration is readable without asking"}
}

// credentialName says why a configuration name may hold a credential, ""
// when it does not by its name alone. Section and key are matched without
// regard to case, as git does.
func credentialName(name string) string {
	lower := strings.ToLower(name)
	sec, rest, _ := strings.Cut(lower, ".")
	key := lower
	if i := strings.LastIndexByte(lower, '.'); i >= 0 {
		key = lower[i+1:]
	}
	switch {
	case sec == "credential":
		return "credential.* settings may hold a credential or a helper that prints one"
	case sec == "http" && key == "extraheader":
		return "http extra headers usually carry an authorization token"
	case rest != "" && (strings.Contains(key, "password") || strings.HasSuffix(key, "pass") ||
		strings.Contains(key, "token") || strings.Contains(key, "secret")):
		return "its key names a password, token or secret"
	case HasURLCredential(name):
		return "it names a URL with a user name or password"
	}
	return ""
}

// CredentialEntry says why the configuration entry name = value may hold
// a credential, "" when it does not: see [ConfigRead].
func CredentialEntry(name, value string) string {
	if why := credentialName(name); why != "" {
		return why
	}
	if HasURLCredential(value) {
		return "its value is a URL with a user name or password"
	}
	return ""
}

// HasURLCredential reports whether s contains a URL whose user-info part
// may carry a credential: any user-info with a password (scheme://u:p@),
// and any user-info at all for http, https, ftp and ftps, where a token is
// often written as the user name (https://TOKEN@github.com). ssh://git@host
// names a user, not a secret.
func HasURLCredential(s string) bool {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return false
		}
		j := i
		for j > 0 && isSchemeByte(s[j-1]) {
			j--
		}
		scheme := strings.ToLower(s[j:i])
		rest := s[i+3:]
		end := strings.IndexAny(rest, "/?# \t\"")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at > 0 {
			info := rest[:at]
			switch {
			case strings.Contains(info, ":"):
				return true
			case strings.HasSuffix(scheme, "http"), strings.HasSuffix(scheme, "https"),
				strings.HasSuffix(scheme, "ftp"), strings.HasSuffix(scheme, "ftps"):
				// The scheme run may carry a key prefix (url.https in
				// url.https://tok@host/.insteadOf).
				return true
			}
		}
		s = rest
	}
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// regexpQuote escapes the regular expression metacharacters of s.
func regexpQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\.+*?()|[]{}^$`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
