package specs

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
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
// hard-block). Keep in sync with that page and docs/config.md's config.toml section.
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
	short       string   // letters whose option takes a value (-n 5)
	optShort    string   // letters whose option takes an optional value, attached only (xargs -i[R])
	noValue     string   // letters whose option is known to take no value; other letters may (see innerCommands)
	noValueLong []string // long options known to take no value
	long        []string // long options taking a value
	envAssign   bool     // env: skip NAME=value words
	operands    int      // operands before the command (timeout DURATION)
	script      string   // short options whose value is a shell command string (flock -c)
	scriptLong  []string // long options whose value is one (--command)
	noCommand   bool     // operands are never a command (script's log file)
}

// wrappers run the rest of their argv as a command: never allowed by a
// spec. Keep in sync with docs/rules.md (wrapper).
var wrappers = map[string]wrapperOpts{
	"env": {short: "uCS", long: []string{"--unset", "--chdir", "--split-string"}, envAssign: true},
	"xargs": {short: "adEILnPs", optShort: "eil", noValue: "0oprtx", long: []string{"--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
		noValueLong: []string{"--null", "--open-tty", "--interactive", "--no-run-if-empty", "--verbose", "--exit", "--show-limits", "--eof", "--replace"}},
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
	"taskset":    {operands: 1, noValue: "acp"},
	"chrt":       {short: "TPD", noValue: "abdefiomprRv", long: []string{"--sched-runtime", "--sched-period", "--sched-deadline"}, operands: 1},
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
		if name == "xargs" && xargsArgFile(argv[1:]) {
			return "xargs runs other programs, with arguments read from a file clada cannot see", true
		}
		return name + " runs other programs", true
	}
	if shells[name] {
		return name + " is a shell: it runs other programs", true
	}
	shown := name // as the model wrote it: python3, not python
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
					return shown + " " + l + " runs code given on the command line, which can run other programs", true
				}
			}
			continue
		}
		if strings.ContainsAny(a[1:], ev.short) {
			return shown + " " + a + " runs code given on the command line, which can run other programs", true
		}
	}
	return "", false
}

// IsShell reports whether argv0 names a shell (sh, bash, zsh, pwsh, …).
func IsShell(argv0 string) bool { return shells[progName(argv0)] }

// RunsPrograms reports whether the program argv0 runs other programs or
// code it is given: a wrapper, a shell or an interpreter, whatever its
// arguments. A prefix pattern for such a program ("python *") would cover
// any code, so clada never offers one.
func RunsPrograms(argv0 string) bool {
	name := progName(argv0)
	_, w := wrappers[name]
	_, ev := evalFlags[name]
	return w || ev || shells[name] || isPythonVersion(name)
}

// xargsArgFile reports whether xargs args name a file of arguments:
// -a FILE (alone or at the end of a cluster such as -ta), --arg-file or an
// abbreviation of it.
func xargsArgFile(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--" || !strings.HasPrefix(a, "-") || a == "-":
			return false
		case strings.HasPrefix(a, "--"):
			n, _, _ := strings.Cut(a, "=")
			if len(n) > 3 && strings.HasPrefix("--arg-file", n) {
				return true
			}
		default:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'a' {
					return true
				}
				if strings.IndexByte("dEILnPseil", c) >= 0 {
					break // the rest of the word is this option's value
				}
			}
		}
	}
	return false
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

// innerCommands calls emit with each command the wrapper name may run
// with args, or, when it is given a shell command string (flock FILE -c
// 'cmd', script -c 'cmd'), that string as script. clada does not know
// every option of every wrapper, nor every abbreviation of its long
// options: an option it does not know to take no value is read both ways,
// with and without the next word as its value, and a hard-blocked program
// found either way is blocked. Past 64 such readings, every later word is
// tried as the start of the command.
func innerCommands(name string, w wrapperOpts, args []string, emit func(cmd []string, script string)) {
	budget := 64
	var walk func(i, ops int)
	// maybeValue reads the word after args[i] both as a value and not.
	maybeValue := func(i, ops int) {
		if budget <= 0 {
			for k := i + 1; k < len(args); k++ {
				emitCmd(w, args[k:], emit)
			}
			return
		}
		budget--
		walk(i+2, ops)
	}
	walk = func(i, ops int) {
		for ; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				i++
				for ; ops > 0 && i < len(args); ops-- {
					i++
				}
				if i < len(args) {
					emitCmd(w, args[i:], emit)
				}
				return
			case strings.HasPrefix(a, "--"):
				n, v, eq := strings.Cut(a, "=")
				if slices.Contains(w.scriptLong, n) || isAbbrev(n, w.scriptLong) {
					if eq {
						emit(nil, v)
					} else if i+1 < len(args) {
						emit(nil, args[i+1])
					}
					if slices.Contains(w.scriptLong, n) {
						return
					}
				}
				if name == "env" && isAbbrevOrSame(n, "--split-string") {
					if eq {
						emit(splitScript(v, args[i+1:]), "")
					} else if i+1 < len(args) {
						emit(splitScript(args[i+1], args[i+2:]), "")
					}
				}
				if eq {
					continue
				}
				if slices.Contains(w.long, n) {
					i++
					continue
				}
				if !slices.Contains(w.noValueLong, n) {
					maybeValue(i, ops)
				}
			case name == "nice" && len(a) > 1 && a[0] == '-' && allDigits(strings.TrimLeft(a[1:], "+-")):
				continue // nice -5: the old form of -n 5
			case strings.HasPrefix(a, "-") && len(a) > 1:
				valued := false
				for j := 1; j < len(a); j++ {
					if strings.ContainsRune(w.optShort, rune(a[j])) {
						valued = true
						break // the rest of the word is its value
					}
					isScript := strings.ContainsRune(w.script, rune(a[j]))
					if !isScript && !strings.ContainsRune(w.short, rune(a[j])) {
						continue
					}
					valued = true
					val, next := a[j+1:], false
					if val == "" && i+1 < len(args) {
						val, next = args[i+1], true
					}
					if isScript {
						emit(nil, val)
						return
					}
					if name == "env" && a[j] == 'S' {
						rest := args[i+1:]
						if next {
							rest = args[i+2:]
						}
						emit(splitScript(val, rest), "")
						return
					}
					if next {
						i++
					}
					break
				}
				if !valued && !strings.ContainsRune(w.noValue, rune(a[len(a)-1])) {
					// The word ends in an option clada does not
					// know: it may take the next word.
					maybeValue(i, ops)
				}
			case w.envAssign && strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
				continue
			case ops > 0:
				ops--
			default:
				emitCmd(w, args[i:], emit)
				return
			}
		}
	}
	walk(0, w.operands)
}

func emitCmd(w wrapperOpts, cmd []string, emit func([]string, string)) {
	if !w.noCommand {
		emit(cmd, "")
	}
}

// isAbbrev reports whether n (with its "--") is a strict prefix of one of
// longs, as getopt_long accepts.
func isAbbrev(n string, longs []string) bool {
	if len(n) < 3 {
		return false
	}
	for _, l := range longs {
		if len(l) > len(n) && strings.HasPrefix(l, n) {
			return true
		}
	}
	return false
}

func isAbbrevOrSame(n, long string) bool {
	return len(n) > 2 && strings.HasPrefix(long, n)
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
func HardBlock(argv []string, dir string, r *Resolver) *rules.Denied {
	return hardBlock(argv, dir, r, 0)
}

func hardBlock(argv []string, dir string, r *Resolver, depth int) *rules.Denied {
	return eachCommandIn(argv, dir, r, depth, func(argv []string, dir string) *rules.Denied { return hardBlockOne(argv, dir, r) })
}

// hardBlockOne applies the hard blocks to argv alone, not to the
// commands it runs.
func hardBlockOne(argv []string, dir string, r *Resolver) *rules.Denied {
	name := progName(argv[0])
	if reason, ok := hardName(name); ok {
		return &rules.Denied{Rule: rules.HardBlock, Word: argv[0], Reason: reason + "; clada never runs it", Advice: "do not use " + name + "; ask the person to run it themselves"}
	}
	args := argv[1:]
	switch name {
	case "rm":
		for _, a := range operandsAfterFlags(args) {
			if what := dangerousTarget(a, dir, r); what != "" {
				return &rules.Denied{Rule: rules.HardBlock, Word: a, Reason: "rm of " + what + " would destroy it; clada never runs it", Advice: "remove single files inside the project instead"}
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
					return &rules.Denied{Rule: rules.HardBlock, Word: a, Reason: name + " -R of " + what + " changes every file in it; clada never runs it", Advice: "change single files inside the project instead"}
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
func eachCommand(argv []string, depth int, check func(argv []string) *rules.Denied) *rules.Denied {
	return eachCommandIn(argv, "", nil, depth, func(argv []string, _ string) *rules.Denied { return check(argv) })
}

// eachCommandIn is eachCommand that also tells check the directory each
// command runs in: dir, or where env -C moves it (resolved with r; dir
// and r may be "" and nil when check does not need it). Simple wrappers
// are taken apart as they parse their options ([Unwrap]); for other
// wrappers, an option clada does not know is read both with and without
// a value ([innerCommands]).
func eachCommandIn(argv []string, dir string, r *Resolver, depth int, check func(argv []string, dir string) *rules.Denied) *rules.Denied {
	if len(argv) == 0 || depth > 8 {
		return nil
	}
	if e := check(argv, dir); e != nil {
		return e
	}
	name := progName(argv[0])
	args := argv[1:]
	if shells[name] {
		for i, a := range args {
			if a == "-c" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'c')) {
				if i+1 < len(args) {
					for _, cmd := range scriptCommands(args[i+1]) {
						if e := eachCommandIn(cmd, dir, r, depth+1, check); e != nil {
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
		return eachCommandIn(args, dir, r, depth+1, check)
	}
	if u, ok := unwrapAs(name, argv); ok && !u.Opaque && u.Deny == nil {
		return eachCommandIn(u.Inner, chdir(dir, u.Chdir, r), r, depth+1, check)
	}
	var found *rules.Denied
	innerCommands(name, w, args, func(cmd []string, script string) {
		if found != nil {
			return
		}
		if script != "" {
			for _, c := range scriptCommands(script) {
				if found = eachCommandIn(c, dir, r, depth+1, check); found != nil {
					return
				}
			}
			return
		}
		found = eachCommandIn(cmd, dir, r, depth+1, check)
	})
	return found
}

// chdir returns the directory a command runs in after env -C c, run in
// dir; dir itself when c is "" or cannot be resolved (then confinement
// refuses the command anyway).
func chdir(dir, c string, r *Resolver) string {
	switch {
	case c == "":
		return dir
	case r != nil:
		if res, err := r.resolve(dir, c); err == nil {
			return res
		}
	case filepath.IsAbs(c):
		return filepath.Clean(c)
	}
	return dir
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
