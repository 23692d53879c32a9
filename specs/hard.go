package specs

import (
	"path/filepath"
	"slices"
	"strings"
)

// ProgName returns the name a program is known by: the base name, lower
// case (on macOS and Windows SUDO finds sudo), without .exe.
func ProgName(argv0 string) string { return progName(argv0) }

func progName(argv0 string) string {
	n := argv0
	if i := strings.LastIndexAny(n, `/\`); i >= 0 {
		n = n[i+1:]
	}
	n = strings.ToLower(n)
	return strings.TrimSuffix(n, ".exe")
}

// hardNames are programs that are always blocked (docs/rules.md,
// hard-block). Keep in sync with that page and the README's config.toml section.
var hardNames = map[string]string{
	"sudo":     "sudo runs commands as another user",
	"su":       "su switches user",
	"doas":     "doas runs commands as another user",
	"dd":       "dd writes raw devices and files",
	"mkfs":     "mkfs formats file systems",
	"shutdown": "shutdown stops the machine",
	"reboot":   "reboot restarts the machine",
	"halt":     "halt stops the machine",
	"poweroff": "poweroff stops the machine",
	"sudoedit": "sudoedit edits files as another user",
	"mke2fs":   "mke2fs formats file systems",
	"mkswap":   "mkswap formats swap areas",
	"wipefs":   "wipefs erases file system signatures",
}

func isHardBlockedName(name string) bool {
	_, reason := hardName(name)
	return reason
}

func hardName(name string) (string, bool) {
	if r, ok := hardNames[name]; ok {
		return r, true
	}
	if strings.HasPrefix(name, "mkfs.") {
		return name + " formats file systems", true
	}
	return "", false
}

// wrapperOpts describes how to find the command a wrapper runs: the short
// options that take a separate value, and the long ones (without "=")
// that do.
type wrapperOpts struct {
	short      string   // letters whose option takes a value (-n 5)
	long       []string // long options taking a value
	envAssign  bool     // env: skip NAME=value words
	operands   int      // operands before the command (timeout DURATION)
	script     string   // short options whose value is a shell command string (flock -c)
	scriptLong []string // long options whose value is one (--command)
	noCommand  bool     // operands are never a command (script's log file)
}

// wrappers run the rest of their argv as a command: never allowed by a
// spec. Keep in sync with docs/rules.md (wrapper).
var wrappers = map[string]wrapperOpts{
	"env":        {short: "uCS", long: []string{"--unset", "--chdir", "--split-string", "--default-signal", "--ignore-signal", "--block-signal"}, envAssign: true},
	"xargs":      {short: "adEeIiLlnPs", long: []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"nohup":      {},
	"timeout":    {short: "ks", long: []string{"--kill-after", "--signal"}, operands: 1},
	"nice":       {short: "n", long: []string{"--adjustment"}},
	"ionice":     {short: "cnp", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"stdbuf":     {short: "ioe", long: []string{"--input", "--output", "--error"}},
	"time":       {short: "fo", long: []string{"--format", "--output"}},
	"command":    {},
	"exec":       {short: "a"},
	"busybox":    {},
	"chroot":     {long: []string{"--groups", "--userspec"}, operands: 1},
	"setsid":     {},
	"unshare":    {},
	"nsenter":    {short: "tSGn"},
	"flock":      {short: "wE", long: []string{"--timeout", "--conflict-exit-code"}, operands: 1, script: "c", scriptLong: []string{"--command"}},
	"script":     {short: "IOBTmEo", long: []string{"--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--echo", "--output-limit"}, script: "c", scriptLong: []string{"--command"}, noCommand: true},
	"taskset":    {operands: 1},
	"chrt":       {short: "TPD", long: []string{"--sched-runtime", "--sched-period", "--sched-deadline"}, operands: 1},
	"setpriv":    {long: []string{"--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid", "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}},
	"watch":      {short: "ndq", long: []string{"--interval", "--differences"}},
	"strace":     {short: "eoopsSuIbEX"},
	"ltrace":     {short: "eoopsSuIbEXn"},
	"caffeinate": {},
	"doas":       {short: "uC"},
	"sudo":       {short: "ugCDhpUTr", long: []string{"--user", "--group", "--chdir", "--close-from", "--host", "--prompt", "--other-user", "--command-timeout", "--role", "--type"}},
	"su":         {},
	"pkexec":     {long: []string{"--user"}},
	"runuser":    {short: "ugc"},
}

// shells run scripts whatever their arguments.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
	"fish": true, "csh": true, "tcsh": true, "ash": true, "rbash": true, "pwsh": true, "powershell": true, "cmd": true,
}

// evalFlags are interpreters' "run this string" flags; a short flag also
// counts inside a cluster (perl -ne, python -Bc).
var evalFlags = map[string]struct {
	short string
	long  []string
}{
	"python": {short: "c"}, "python2": {short: "c"}, "python3": {short: "c"}, "pypy": {short: "c"}, "pypy3": {short: "c"},
	"node": {short: "ep", long: []string{"--eval", "--print"}}, "nodejs": {short: "ep", long: []string{"--eval", "--print"}},
	"deno": {}, "bun": {short: "e", long: []string{"--eval", "--print"}},
	"perl": {short: "eE"}, "ruby": {short: "e"}, "php": {short: "rR", long: []string{"--run"}},
	"lua": {short: "e"}, "luajit": {short: "e"}, "tclsh": {}, "osascript": {short: "e"}, "Rscript": {short: "e"},
}

// Wrapper reports whether argv runs another program or a script given on
// the command line, and why: "env runs other programs". Such commands are
// never allowed by a spec, not even a user's; the gateway asks.
func Wrapper(argv []string) (reason string, ok bool) {
	if len(argv) == 0 {
		return "", false
	}
	name := progName(argv[0])
	if _, ok := wrappers[name]; ok {
		return name + " runs other programs", true
	}
	if shells[name] {
		return name + " is a shell: it runs other programs", true
	}
	if isPythonVersion(name) {
		name = "python"
	}
	ev, ok := evalFlags[name]
	if !ok {
		return "", false
	}
	if name == "deno" || name == "tclsh" {
		return name + " runs scripts", true
	}
	for _, a := range argv[1:] {
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if strings.HasPrefix(a, "--") {
			n, _, _ := strings.Cut(a, "=")
			for _, l := range ev.long {
				if n == l {
					return name + " " + l + " runs code given on the command line", true
				}
			}
			continue
		}
		if strings.ContainsAny(a[1:], ev.short) {
			return name + " " + a + " runs code given on the command line", true
		}
	}
	return "", false
}

// isPythonVersion matches python3.12, python2.7 and the like.
func isPythonVersion(n string) bool {
	rest, ok := strings.CutPrefix(n, "python")
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// inner returns the command a wrapper runs, or nil; or, when the wrapper
// is given a shell command string (flock FILE -c 'cmd', script -c 'cmd'),
// that string as script.
func inner(name string, w wrapperOpts, args []string) (cmd []string, script string) {
	cmd, script = innerArgs(name, w, args)
	if w.noCommand && script == "" {
		return nil, ""
	}
	return cmd, script
}

func innerArgs(name string, w wrapperOpts, args []string) (cmd []string, script string) {
	ops := w.operands
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			for ; ops > 0 && i < len(args); ops-- {
				i++
			}
			if i < len(args) {
				return args[i:], ""
			}
			return nil, ""
		case strings.HasPrefix(a, "--"):
			n, v, eq := strings.Cut(a, "=")
			if slices.Contains(w.scriptLong, n) {
				if eq {
					return nil, v
				}
				if i+1 < len(args) {
					return nil, args[i+1]
				}
				return nil, ""
			}
			if eq {
				if name == "env" && n == "--split-string" {
					return splitScript(a[len(n)+1:], args[i+1:]), ""
				}
				continue
			}
			for _, l := range w.long {
				if n == l {
					if name == "env" && n == "--split-string" && i+1 < len(args) {
						return splitScript(args[i+1], args[i+2:]), ""
					}
					i++
					break
				}
			}
		case name == "nice" && len(a) > 1 && a[0] == '-' && allDigits(a[1:]):
			continue // nice -5: the old form of -n 5
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				isScript := strings.ContainsRune(w.script, rune(a[j]))
				if !isScript && !strings.ContainsRune(w.short, rune(a[j])) {
					continue
				}
				val, next := a[j+1:], false
				if val == "" && i+1 < len(args) {
					val, next = args[i+1], true
				}
				if isScript {
					return nil, val
				}
				if name == "env" && a[j] == 'S' {
					rest := args[i+1:]
					if next {
						rest = args[i+2:]
					}
					return splitScript(val, rest), ""
				}
				if next {
					i++
				}
				break
			}
		case w.envAssign && strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			continue
		case ops > 0:
			ops--
		default:
			return args[i:], ""
		}
	}
	return nil, ""
}

// splitScript splits a script string (sh -c, env -S) into words at blanks,
// dropping quote characters, and appends rest. It is no shell parser: it
// only has to find a hard-blocked program name.
func splitScript(s string, rest []string) []string {
	s = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(s)
	return append(strings.Fields(s), rest...)
}

// scriptCommands returns the commands of a shell script string: words
// split at blanks, and a new command after each ; & | ( ) ` newline or
// "$(" — a rough cut that errs towards finding too many commands.
func scriptCommands(s string) [][]string {
	s = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(s)
	var cmds [][]string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(";&|()`\n{}!", r)
	}) {
		f := strings.Fields(part)
		// Skip leading assignments and keywords: "X=1 sudo", "then sudo".
		for len(f) > 0 && (strings.Contains(f[0], "=") || shellKeywords[f[0]] || strings.HasPrefix(f[0], "$")) {
			f = f[1:]
		}
		if len(f) > 0 {
			cmds = append(cmds, f)
		}
	}
	return cmds
}

var shellKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"while": true, "until": true, "for": true, "in": true, "case": true, "esac": true, "time": true,
}

// HardBlock applies the built-in hard blocks (docs/rules.md, hard-block) to
// argv, run in dir (absolute): sudo, sudoedit, su, doas, mkfs, mkfs.*,
// mke2fs, mkswap, wipefs, dd, shutdown, reboot, halt, poweroff; rm of "/", "~…", the root or a
// directory containing it (any flags); chmod/chown/chgrp -R of the same.
// Names are matched by base name without regard to case (/usr/bin/sudo
// and SUDO are sudo). It sees through wrappers (env [-i] [VAR=x] cmd,
// timeout 5 cmd, nice -n 5 cmd, nohup, command, exec, xargs, busybox,
// taskset MASK cmd, chrt PRIO cmd, setpriv cmd, flock FILE cmd, …) and
// through the script of sh -c, flock FILE -c, script -c and the like, split roughly into
// commands at blanks and shell operators. r may be nil: then only "/" and
// "~" are recognised for rm and chmod. It returns nil when nothing is
// blocked.
func HardBlock(argv []string, dir string, r *Resolver) *DeniedError {
	return hardBlock(argv, dir, r, 0)
}

func hardBlock(argv []string, dir string, r *Resolver, depth int) *DeniedError {
	return eachCommand(argv, depth, func(argv []string) *DeniedError { return hardBlockOne(argv, dir, r) })
}

// hardBlockOne applies the hard blocks to argv alone, not to the
// commands it runs.
func hardBlockOne(argv []string, dir string, r *Resolver) *DeniedError {
	name := progName(argv[0])
	if reason, ok := hardName(name); ok {
		return &DeniedError{Rule: RuleHardBlock, Arg: argv[0], Reason: reason + "; clada never runs it", Advice: "do not use " + name + "; ask the person to run it themselves"}
	}
	args := argv[1:]
	switch name {
	case "rm":
		for _, a := range operandsAfterFlags(args) {
			if what := dangerousTarget(a, dir, r); what != "" {
				return &DeniedError{Rule: RuleHardBlock, Arg: a, Reason: "rm of " + what + " would destroy it; clada never runs it", Advice: "remove single files inside the project instead"}
			}
		}
	case "chmod", "chown", "chgrp":
		recursive := false
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--recursive" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'R')) {
				recursive = true
			}
		}
		if recursive {
			for _, a := range args {
				if strings.HasPrefix(a, "-") && a != "-" {
					continue
				}
				if what := dangerousTarget(a, dir, r); what != "" {
					return &DeniedError{Rule: RuleHardBlock, Arg: a, Reason: name + " -R of " + what + " changes every file in it; clada never runs it", Advice: "change single files inside the project instead"}
				}
			}
		}
	}
	return nil
}

// eachCommand calls check on argv and on every command argv runs: through
// wrappers (env [-i] [VAR=x] cmd, timeout 5 cmd, nice -n 5 cmd, nohup,
// command, exec, xargs, busybox, taskset MASK cmd, flock FILE cmd, …) and
// through the script of sh -c, flock FILE -c, script -c and the like,
// split roughly into commands at blanks and shell operators. It returns
// the first refusal, or nil.
func eachCommand(argv []string, depth int, check func(argv []string) *DeniedError) *DeniedError {
	if len(argv) == 0 || depth > 8 {
		return nil
	}
	if e := check(argv); e != nil {
		return e
	}
	name := progName(argv[0])
	args := argv[1:]
	if shells[name] {
		for i, a := range args {
			if a == "-c" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'c')) {
				if i+1 < len(args) {
					for _, cmd := range scriptCommands(args[i+1]) {
						if e := eachCommand(cmd, depth+1, check); e != nil {
							return e
						}
					}
				}
				break
			}
		}
		return nil
	}
	w, ok := wrappers[name]
	if !ok {
		return nil
	}
	if name == "busybox" && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return eachCommand(args, depth+1, check)
	}
	cmd, script := inner(name, w, args)
	if script != "" {
		for _, c := range scriptCommands(script) {
			if e := eachCommand(c, depth+1, check); e != nil {
				return e
			}
		}
		return nil
	}
	return eachCommand(cmd, depth+1, check)
}

// operandsAfterFlags returns the words that are not flags: GNU programs
// permute, so flags may follow operands; after "--" everything counts.
func operandsAfterFlags(args []string) []string {
	var ops []string
	done := false
	for _, a := range args {
		switch {
		case done:
			ops = append(ops, a)
		case a == "--":
			done = true
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			ops = append(ops, a)
		}
	}
	return ops
}

// dangerousTarget returns a description when a names "/", the home
// directory (~…), the project root or a directory containing it.
func dangerousTarget(a, dir string, r *Resolver) string {
	if strings.HasPrefix(a, "~") {
		return a + " (the home directory)"
	}
	if a == "" {
		return ""
	}
	if r == nil {
		if strings.Trim(a, "/.") == "" && strings.HasPrefix(a, "/") {
			return "/"
		}
		return ""
	}
	res, err := r.resolve(dir, a)
	if err != nil {
		return ""
	}
	switch {
	case res == string(filepath.Separator):
		return "/"
	case res == r.root:
		return "the project root"
	case within(res, r.root):
		return res + ", which contains the project root"
	}
	return ""
}
