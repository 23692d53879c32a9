package gitrules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// This file screens git subcommands that are not in the read-only tables
// (fetch, clone, push, rebase, grep …). Those are asked, but a person must
// never be asked to approve an option that makes git run a program the
// model named (git fetch --upload-pack='touch x' looks like a fetch), copy
// hooks into the repository, or write where clada cannot see. So these
// options are denied on every subcommand, before the person is asked; an
// output or reference path is reported for the caller to confine.

// progAction is what the screen does with an option.
type progAction uint8

const (
	progDeny   progAction = iota // denied wherever it appears
	progWrite                    // its value is a file or directory git writes: confined by the caller
	progRead                     // its value is a repository or file git reads: confined by the caller
	progConfig                   // its value is KEY=VALUE set in the new repository: see cloneConfigWhy
)

// progOpt is one screened long option.
type progOpt struct {
	action progAction
	subs   []string // subcommands it applies to; nil means every subcommand
	reason string   // for progDeny
	advice string   // for progDeny
}

const (
	adviceProgram  = "drop the option: git runs the default program; a person is never asked to approve a program named in an option"
	adviceTemplate = "drop the option: the repository gets git's built-in template"
	adviceFilter   = "rewriting history with commands needs the person; ask them to run it"
)

// programLong are the screened long options, by name without "--". git's
// parse-options accepts unambiguous abbreviations, so any word that is a
// prefix of one of these names is screened as that option. Keep sorted;
// update docs/rules.md too.
var programLong = map[string][]progOpt{
	"browser":             {{progDeny, []string{"instaweb", "web--browse"}, "runs the browser program it names", adviceProgram}},
	"cc-cmd":              {{progDeny, []string{"send-email"}, "runs the command it names to find more recipients", adviceProgram}},
	"commit-filter":       {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every commit", adviceFilter}},
	"config":              {{action: progConfig, subs: []string{"clone"}}},
	"env-filter":          {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every commit", adviceFilter}},
	"exec":                {{progDeny, nil, "runs the program or shell command it names", adviceProgram}},
	"extcmd":              {{progDeny, []string{"difftool"}, "runs the command it names on every changed file", "use git diff, or ask the person to run the diff tool"}},
	"header-cmd":          {{progDeny, []string{"send-email"}, "runs the command it names for every message", adviceProgram}},
	"httpd":               {{progDeny, []string{"instaweb"}, "runs the web server program it names", adviceProgram}},
	"index-filter":        {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every commit", adviceFilter}},
	"msg-filter":          {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every commit", adviceFilter}},
	"open-files-in-pager": {{progDeny, nil, "opens the matching files in a pager program, which it may name", "drop the option: clada captures git's output"}},
	"output":              {{action: progWrite}},
	"output-directory":    {{action: progWrite, subs: []string{"format-patch"}}},
	"parent-filter":       {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every commit", adviceFilter}},
	"receive-pack":        {{progDeny, nil, "runs the program it names as git-receive-pack", adviceProgram}},
	"reference":           {{action: progRead}},
	"reference-if-able":   {{action: progRead}},
	"sendmail-cmd":        {{progDeny, []string{"send-email"}, "runs the command it names to send mail", adviceProgram}},
	"separate-git-dir":    {{progDeny, nil, "puts the repository's .git directory somewhere else, where clada cannot protect it", "keep the repository in .git inside the project"}},
	"smtp-server":         {{progDeny, []string{"send-email"}, "runs the program it names when the value is a path", "ask the person to send the mail"}},
	"tag-name-filter":     {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every tag", adviceFilter}},
	// git commit --template reads a message template; everywhere else
	// (init, clone, submodule) it copies hooks into the repository.
	"template":    {{action: progRead, subs: []string{"commit"}}, {progDeny, nil, "copies hooks and configuration from a directory into the repository", adviceTemplate}},
	"to-cmd":      {{progDeny, []string{"send-email"}, "runs the command it names to find recipients", adviceProgram}},
	"tree-filter": {{progDeny, []string{"filter-branch"}, "runs the shell command it names for every commit", adviceFilter}},
	"upload-pack": {{progDeny, nil, "runs the program it names as git-upload-pack", adviceProgram}},
}

// programShort says, per subcommand, which short options the screen knows:
// deny are letters denied anywhere in a cluster (clone -u is --upload-pack,
// grep -nOid opens files in the pager "id"), write are letters whose value
// is an output path, and values are the other letters that take a value,
// after which the rest of the word is that value and no longer options.
var programShort = map[string]struct {
	deny          map[byte]string // letter → the long option it stands for
	config        byte            // the letter of --config (clone -c KEY=VALUE)
	write, values string
}{
	"archive":      {write: "o"},
	"clone":        {deny: map[byte]string{'u': "upload-pack"}, config: 'c', values: "obj"},
	"difftool":     {deny: map[byte]string{'x': "extcmd"}, values: "t"},
	"fetch":        {deny: map[byte]string{'u': "upload-pack"}, values: "oj"},
	"format-patch": {write: "o", values: "vO"},
	"grep":         {deny: map[byte]string{'O': "open-files-in-pager"}, values: "efABCm"},
	"ls-remote":    {deny: map[byte]string{'u': "upload-pack"}, values: "o"},
	"pull":         {deny: map[byte]string{'u': "upload-pack"}, values: "osXj"},
	"rebase":       {deny: map[byte]string{'x': "exec"}, values: "sXC"},
}

// screenPrograms checks the words after subcommand sub. It returns a Deny
// verdict for a screened option, or nil; write and read paths found are
// appended to v for the caller to confine.
func screenPrograms(sub string, args []string, v *Verdict) *Verdict {
	deny := func(arg, reason, advice string) *Verdict {
		return &Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: arg, Subcommand: sub, Reason: reason, Advice: advice}
	}
	short := programShort[sub]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasEq := strings.Cut(a[2:], "=")
			full, o, ok := lookupProgram(sub, name)
			if !ok {
				continue
			}
			shown := "--" + full
			if full != name {
				shown = fmt.Sprintf("--%s (abbreviating --%s)", name, full)
			}
			if o.action == progDeny {
				if full == "smtp-server" {
					w := val
					if !hasEq && i+1 < len(args) {
						w = args[i+1]
					}
					if !strings.ContainsAny(w, `/\`) {
						continue // a host name, not a program
					}
				}
				return deny(a, fmt.Sprintf("git %s %s %s", sub, shown, o.reason), o.advice)
			}
			if !hasEq {
				if i+1 >= len(args) {
					continue // git itself reports the missing value
				}
				i++
				val = args[i]
			}
			switch o.action {
			case progWrite:
				v.Writes = append(v.Writes, val)
			case progRead:
				v.Paths = append(v.Paths, val)
			case progConfig:
				if d := screenConfig(sub, a, val, v); d != nil {
					return d
				}
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if short.config != 0 && c == short.config {
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				if d := screenConfig(sub, a, val, v); d != nil {
					return d
				}
				break
			}
			if long, ok := short.deny[c]; ok {
				o, _ := applicable(sub, programLong[long])
				return deny(a, fmt.Sprintf("git %s -%c (--%s) %s", sub, c, long, o.reason), o.advice)
			}
			if strings.IndexByte(short.write, c) >= 0 {
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				if val != "" {
					v.Writes = append(v.Writes, val)
				}
				break
			}
			if strings.IndexByte(short.values, c) >= 0 {
				break // the rest of the word, or the next word, is a value
			}
		}
	}
	return nil
}

// lookupProgram finds the screened long option that name is, or
// abbreviates, for subcommand sub. A name that abbreviates several
// screened options is the first of them in sorted order (all of them are
// screened, so which one does not matter for safety).
func lookupProgram(sub, name string) (string, progOpt, bool) {
	if name == "" {
		return "", progOpt{}, false
	}
	if o, ok := applicable(sub, programLong[name]); ok {
		return name, o, true
	}
	best := ""
	var bestOpt progOpt
	for full, opts := range programLong {
		if !strings.HasPrefix(full, name) || (best != "" && full > best) {
			continue
		}
		if o, ok := applicable(sub, opts); ok {
			best, bestOpt = full, o
		}
	}
	return best, bestOpt, best != ""
}

// applicable returns the first of opts that applies to subcommand sub.
func applicable(sub string, opts []progOpt) (progOpt, bool) {
	for _, o := range opts {
		if o.subs == nil || slices.Contains(o.subs, sub) {
			return o, true
		}
	}
	return progOpt{}, false
}

// Options of read-only subcommands that are denied because they show a
// diff with textconv or leave the project's repository.
var (
	// git status -v shows the staged diff (-vv the unstaged one too) with
	// textconv programs, and git status takes no --no-textconv: allowed
	// only where no textconv driver is configured (Verdict.Textconv).
	statusVerbose = opt{kind: kBool, textconv: true}
	// git rev-parse --show-superproject-working-tree runs
	// git -C .. ls-files, reading the repository above the project.
	denySuperproject = opt{kind: kDeny,
		reason: "runs git in the directory above the project, reading the repository there",
		advice: "clada keeps git to the project's own repository; run git rev-parse --show-toplevel"}
)

// screenConfig screens one KEY=VALUE that git clone -c (--config) sets in
// the new repository, given in word arg: a key that makes git run a
// program, read another file or reach another host is denied; any other
// is named in the reason of the clone's question, so that the person
// sees what they approve.
func screenConfig(sub, arg, val string, v *Verdict) *Verdict {
	key, _, _ := strings.Cut(val, "=")
	if why := cloneConfigWhy(key); why != "" {
		return &Verdict{Outcome: Deny, Rule: rules.GitOption, Arg: arg, Subcommand: sub,
			Reason: fmt.Sprintf("git %s -c %s %s", sub, key, why),
			Advice: "clone without it; the person can configure the repository afterwards"}
	}
	v.Reason += fmt.Sprintf("; it sets %s in the new repository", key)
	return nil
}

// cloneConfigSections are the configuration sections (lower case) where a
// key can name a program for git to run, a file for it to read or write,
// or another host or transport, or where git clone runs further commands
// (submodules, hooks): git clone -c of any key there is denied. In core,
// http and remote only the keys of configCoreSafe, configHTTPSafe and
// configRemoteSafe are allowed (core.sshCommand, core.hooksPath,
// core.fsmonitor, core.editor, core.pager, core.askPass, core.gitProxy,
// core.alternateRefsCommand, core.worktree, core.attributesFile and the
// rest are not).
var cloneConfigSections = map[string]string{
	"alias":         "defines an alias, which can run a shell command",
	"credential":    "names a credential helper, a program git runs",
	"diff":          "can name a diff or textconv program",
	"difftool":      "names a diff tool program",
	"filter":        "names a clean or smudge filter program, which checkout runs",
	"fsmonitor":     "names a file system monitor hook",
	"gpg":           "names the signing program",
	"hook":          "names a hook command git runs",
	"include":       "includes another configuration file",
	"includeif":     "includes another configuration file",
	"lfs":           "can name a transfer agent program for git-lfs",
	"merge":         "can name a merge driver program",
	"mergetool":     "names a merge tool program",
	"pager":         "names a pager program",
	"protocol":      "allows transports such as ext::, which runs a command",
	"receive":       "configures what a push into the repository runs",
	"safe":          "marks other repositories as safe, which runs their configuration's programs",
	"sendemail":     "can name programs that send mail",
	"sequence":      "names the sequence editor program",
	"ssh":           "chooses how the ssh program is invoked",
	"submodule":     "configures submodules, whose update can run a command",
	"trace2":        "writes trace files where it names",
	"uploadarchive": "configures what serving archives runs",
	"uploadpack":    "can name a hook program for serving packs",
	"url":           "rewrites URLs, which can redirect the clone to another host or transport",
	"web":           "names the browser program",
	"browser":       "names the browser program",
	"instaweb":      "names the web server program",
	"gui":           "can name programs the GUI runs",
	"guitool":       "names commands the GUI runs",
}

var (
	configCoreSafe = map[string]bool{
		"autocrlf": true, "eol": true, "safecrlf": true, "symlinks": true, "longpaths": true, "ignorecase": true,
		"filemode": true, "compression": true, "loosecompression": true, "precomposeunicode": true,
		"protectntfs": true, "protecthfs": true, "checkstat": true, "trustctime": true, "quotepath": true,
		"bigfilethreshold": true, "preloadindex": true, "untrackedcache": true, "splitindex": true,
		"multipackindex": true, "commitgraph": true, "abbrev": true, "whitespace": true,
		"logallrefupdates": true, "sparsecheckout": true, "sparsecheckoutcone": true, "checkroundtripencoding": true,
	}
	configHTTPSafe = map[string]bool{
		"sslverify": true, "version": true, "postbuffer": true, "lowspeedlimit": true, "lowspeedtime": true,
		"maxrequests": true, "minsessions": true, "followredirects": true, "sslbackend": true,
	}
	configRemoteSafe = map[string]bool{
		"fetch": true, "tagopt": true, "prune": true, "prunetags": true, "mirror": true, "skipdefaultupdate": true, "promisor": true, "partialclonefilter": true,
	}
)

// cloneConfigWhy says why git clone -c KEY is denied, "" when it is asked.
// Git reads section and key names case-insensitively; a subsection
// (remote.origin.fetch's origin) is between them.
func cloneConfigWhy(key string) string {
	k := strings.ToLower(key)
	i, j := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
	if i <= 0 || j == len(k)-1 {
		return "is not a configuration key (section.name)"
	}
	section, name := k[:i], k[j+1:]
	if why, ok := cloneConfigSections[section]; ok {
		return why
	}
	switch section {
	case "init":
		if name == "templatedir" {
			return "names the template directory, whose hooks are copied into the repository"
		}
	case "core":
		if i != j || !configCoreSafe[name] {
			return "can name a program git runs (core.sshCommand, core.hooksPath, core.fsmonitor, core.editor, core.pager …) or a file it reads; only core settings that change no program or path are asked"
		}
	case "http":
		if !configHTTPSafe[name] {
			return "can name a proxy, a cookie or key file, or headers sent to another host; only http.sslVerify, http.version and the buffer and speed settings are asked"
		}
	case "remote":
		if !configRemoteSafe[name] {
			return "can name the program run on the other side (uploadpack), a helper (vcs) or a proxy; only remote.NAME.fetch, tagOpt, prune and mirror are asked"
		}
	}
	return ""
}
