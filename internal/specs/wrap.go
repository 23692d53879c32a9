package specs

import (
	"fmt"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// Simple wrappers (docs/rules.md, `wrapper`) run one command, changed only in ways
// that do not change what it does: its environment (env), priority
// (nice), time limit (timeout), buffering (stdbuf), hang-up signal
// (nohup), or measured time (time). The gateway judges such a command by
// the command it wraps, decided as if it stood alone, after checking the
// wrapper's own words here. Every other program that runs programs
// (xargs, shells, interpreters with inline code, chroot, setpriv, …)
// stays [Wrapper]: asked, whatever it runs.

// Unwrapped is a simple wrapper command taken apart the way the wrapper
// parses its arguments.
type Unwrapped struct {
	Name string // the wrapper: env, nice, timeout, time, stdbuf, nohup
	// Opts are the wrapper's own words after its name, as written:
	// options, env's NAME=VALUE assignments, timeout's DURATION.
	Opts []string
	// Inner is the command the wrapper runs; nil when it runs none (env
	// and nice alone print, --help and --version print and exit).
	Inner []string
	// Chdir is env -C/--chdir DIR as written, "" when none: Inner runs
	// there.
	Chdir string
	// Output is time -o/--output FILE as written, "" when none: time
	// writes its report there, replacing the file unless Append.
	Output string
	Append bool
	// ClearEnv is set by env -i, --ignore-environment or a lone "-":
	// Inner starts with an empty environment.
	ClearEnv bool
	// Ask says why the wrapper's own words need the person ("env sets
	// PATH, which changes which programs run"); AskWord is the word.
	// With Opaque set clada could not take the command apart as the
	// wrapper would (an option it does not know, env -S): Inner is nil
	// and the command is asked as a whole.
	Ask, AskWord string
	Opaque       bool
	// Help is set by --help or --version (time -h, -V): the wrapper
	// prints and exits, running nothing.
	Help bool
	// Deny is set when the wrapper would refuse its arguments (a
	// duration that is none) or runs nothing at all (timeout without a
	// command).
	Deny *rules.Denied
}

// optArg says whether a wrapper option takes a value.
type optArg int

const (
	argNone     optArg = iota
	argRequired        // -n 5, -n5, --adjustment=5, --adjustment 5
	argOptional        // --default-signal[=SIG]: attached only
)

type wrapOpt struct {
	short byte   // 0 when there is none
	long  string // without "--"; "" when there is none
	arg   optArg
}

// simpleWrapper is one simple wrapper's grammar. All of them parse with
// getopt_long in "+" mode: the first word that is not an option ends the
// options, and long options may be abbreviated to a unique prefix.
type simpleWrapper struct {
	opts      []wrapOpt
	numberOpt bool // nice -5, --5, -+5: the old form of -n
	assigns   bool // env: NAME=VALUE words after the options
	duration  bool // timeout: a DURATION operand before the command
	// set judges one option and its value; it returns why the person
	// must decide (ask) or a refusal (deny), or neither.
	set func(u *Unwrapped, o wrapOpt, word, val string)
	// none says what a command without Inner is: "" to allow it (nice
	// alone prints the niceness), else why it is denied or asked.
	none func(u *Unwrapped)
}

var helpVersion = []wrapOpt{{long: "help"}, {long: "version"}}

// simpleWrappers are the wrappers judged by what they run. Keep in sync
// with docs/rules.md and docs/defaults.md ("Wrappers").
var simpleWrappers = map[string]*simpleWrapper{
	"env": {
		opts: append([]wrapOpt{
			{short: 'i', long: "ignore-environment"}, {short: '0', long: "null"},
			{short: 'u', long: "unset", arg: argRequired}, {short: 'C', long: "chdir", arg: argRequired},
			{short: 'S', long: "split-string", arg: argRequired}, {short: 'v', long: "debug"},
			{long: "block-signal", arg: argOptional}, {long: "default-signal", arg: argOptional},
			{long: "ignore-signal", arg: argOptional}, {long: "list-signal-handling"},
		}, helpVersion...),
		assigns: true,
		set: func(u *Unwrapped, o wrapOpt, word, val string) {
			switch o.short {
			case 'i':
				u.ClearEnv = true
			case 'C':
				u.Chdir = val
			case 'S':
				u.opaque(word, "env "+word+" splits a string into a command that clada does not take apart, and runs it")
			case 'u':
				if val == "" || strings.Contains(val, "=") {
					u.deny(rules.FlagValue, word, fmt.Sprintf("env -u takes a variable name, not %q", val), "write env -u NAME")
				}
			}
		},
		none: func(u *Unwrapped) {
			u.ask("env", "env without a command prints the environment, which may hold secrets")
		},
	},
	"nice": {
		opts:      append([]wrapOpt{{short: 'n', long: "adjustment", arg: argRequired}}, helpVersion...),
		numberOpt: true,
		set: func(u *Unwrapped, o wrapOpt, word, val string) {
			if o.short == 'n' && !validAdjustment(val) {
				u.deny(rules.FlagValue, word, fmt.Sprintf("nice %s takes a whole number, not %q", word, val), "write nice -n 10 COMMAND")
			}
		},
	},
	"timeout": {
		opts: append([]wrapOpt{
			{short: 'k', long: "kill-after", arg: argRequired}, {short: 's', long: "signal", arg: argRequired},
			{short: 'v', long: "verbose"}, {long: "preserve-status"}, {long: "foreground"},
		}, helpVersion...),
		duration: true,
		set: func(u *Unwrapped, o wrapOpt, word, val string) {
			switch o.short {
			case 'k':
				if !isDuration(val) {
					u.deny(rules.FlagValue, word, fmt.Sprintf("timeout %s takes a duration, not %q", word, val), "write a duration such as 10s, 2m or 1h")
				}
			case 's':
				if !isSignal(val) {
					u.deny(rules.FlagValue, word, fmt.Sprintf("timeout %s takes a signal name or number, not %q", word, val), "write a signal such as TERM, KILL or 9")
				}
			}
		},
	},
	"time": {
		opts: append([]wrapOpt{
			{short: 'a', long: "append"}, {short: 'f', long: "format", arg: argRequired},
			{short: 'o', long: "output", arg: argRequired}, {short: 'p', long: "portability"},
			{short: 'q', long: "quiet"}, {short: 'v', long: "verbose"}, {short: 'h'}, {short: 'V'},
		}, helpVersion...),
		set: func(u *Unwrapped, o wrapOpt, word, val string) {
			switch o.short {
			case 'o':
				u.Output = val
			case 'a':
				u.Append = true
			}
		},
	},
	"stdbuf": {
		opts: append([]wrapOpt{
			{short: 'i', long: "input", arg: argRequired}, {short: 'o', long: "output", arg: argRequired},
			{short: 'e', long: "error", arg: argRequired},
		}, helpVersion...),
		set: func(u *Unwrapped, o wrapOpt, word, val string) {
			if o.short != 0 && !isBufMode(val) {
				u.deny(rules.FlagValue, word, fmt.Sprintf("stdbuf %s takes L, 0 or a size, not %q", word, val), "write stdbuf -oL COMMAND")
			}
		},
	},
	"nohup": {opts: helpVersion},
}

// Plain functions instead of regular expressions, which would be
// compiled at every start of clada.

// isDuration reports whether s is timeout's DURATION: a floating point
// number (digits with at most one ".", an optional exponent) and an
// optional unit s, m, h or d.
func isDuration(s string) bool {
	if n := len(s); n > 0 && strings.IndexByte("smhd", s[n-1]) >= 0 {
		s = s[:n-1]
	}
	mant := s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp := s[i+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if !allDigits(exp) {
			return false
		}
		mant = s[:i]
	}
	whole, frac, dot := strings.Cut(mant, ".")
	switch {
	case !dot:
		return allDigits(whole)
	case whole == "":
		return allDigits(frac)
	}
	return allDigits(whole) && (frac == "" || allDigits(frac))
}

// isSignal reports whether s can name a signal: 1 to 16 letters, digits,
// "+" or "-" (TERM, SIGKILL, 9, RTMIN+1).
func isSignal(s string) bool {
	return len(s) >= 1 && len(s) <= 16 && onlyBytes(s, "+-")
}

// isBufMode reports whether s is a stdbuf MODE: L, or a size (digits and
// at most three unit letters: 0, 4096, 1M, 1KiB).
func isBufMode(s string) bool {
	if s == "L" {
		return true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	unit := s[i:]
	return i > 0 && len(unit) <= 3 && onlyBytes(unit, "") && !strings.ContainsAny(unit, "0123456789")
}

// isPlainValue reports whether s holds only letters, digits and _ . @ :
// + , = - (a locale, a terminal name, a colour setting).
func isPlainValue(s string) bool { return onlyBytes(s, "_.@:+,=-") }

// onlyBytes reports whether every byte of s is an ASCII letter, a digit
// or one of extra.
func onlyBytes(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

func validAdjustment(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return s != "" && allDigits(s)
}

func (u *Unwrapped) ask(word, why string) {
	if u.Ask == "" {
		u.Ask, u.AskWord = why, word
	}
}

func (u *Unwrapped) opaque(word, why string) {
	u.Opaque = true
	u.Ask, u.AskWord = why, word
	u.Inner = nil
}

func (u *Unwrapped) deny(rule rules.Rule, word, reason, advice string) {
	if u.Deny == nil {
		u.Deny = &rules.Denied{Rule: rule, Word: word, Reason: reason, Advice: advice}
	}
}

// IsSimpleWrapper reports whether name (a bare program name) is a wrapper
// that [Unwrap] takes apart.
func IsSimpleWrapper(name string) bool {
	_, ok := simpleWrappers[name]
	return ok
}

// Unwrap takes argv apart when argv[0] is exactly the bare name of a
// simple wrapper (env, nice, timeout, time, stdbuf, nohup), as the
// wrapper itself parses it; ok is false for any other program. The
// caller decides Inner as a command of its own, in Chdir when set, and
// then applies Ask, Deny and Output.
func Unwrap(argv []string) (u *Unwrapped, ok bool) {
	if len(argv) == 0 {
		return nil, false
	}
	return unwrapAs(argv[0], argv)
}

// unwrapAs is Unwrap with argv[0] known as name (the hard blocks match
// /usr/bin/env and ENV as env).
func unwrapAs(name string, argv []string) (u *Unwrapped, ok bool) {
	w, ok := simpleWrappers[name]
	if !ok {
		return nil, false
	}
	u = &Unwrapped{Name: name}
	end := w.parse(u, argv)
	if u.Opaque {
		return u, true
	}
	if end < len(argv) {
		u.Inner = argv[end:]
	}
	u.Opts = argv[1:end]
	if u.Inner == nil && u.Deny == nil && !u.Help {
		switch {
		case w.none != nil:
			w.none(u)
		case u.Name != "nice":
			u.deny(rules.Spec, u.Name, u.Name+" needs a command to run", "write "+u.Name+" COMMAND [ARG]...")
		}
	}
	return u, true
}

// parse reads the options (and env's assignments, timeout's DURATION)
// and returns the index of the first word of the wrapped command.
func (w *simpleWrapper) parse(u *Unwrapped, argv []string) int {
	i := 1
	for ; i < len(argv) && !u.Opaque && u.Deny == nil; i++ {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if w.numberOpt {
			// nice's own test: -N, --N and -+N are adjustments.
			k := 1
			if a[1] == '-' || a[1] == '+' {
				k = 2
			}
			if len(a) > k && a[k] >= '0' && a[k] <= '9' {
				w.set(u, wrapOpt{short: 'n'}, a, a[1:])
				continue
			}
		}
		var next int
		if strings.HasPrefix(a, "--") {
			next = w.long(u, argv, i)
		} else {
			next = w.short(u, argv, i)
		}
		if u.Help {
			u.Ask, u.AskWord = "", ""
			return len(argv)
		}
		i = next
	}
	if u.Opaque || u.Deny != nil {
		return len(argv)
	}
	if w.assigns {
		if i < len(argv) && argv[i] == "-" {
			u.ClearEnv = true
			i++
		}
		for ; i < len(argv) && strings.Contains(argv[i], "="); i++ {
			name, val, _ := strings.Cut(argv[i], "=")
			if why := envRisk(name, val); why != "" {
				u.ask(argv[i], why)
			}
		}
	}
	if w.duration {
		if i >= len(argv) {
			u.deny(rules.Spec, u.Name, "timeout needs a DURATION and a command", "write timeout 10s COMMAND [ARG]...")
			return len(argv)
		}
		if !isDuration(argv[i]) {
			u.deny(rules.FlagValue, argv[i], fmt.Sprintf("timeout's DURATION %q is not a duration", argv[i]), "write a duration such as 10s, 2m or 1h before the command")
			return len(argv)
		}
		i++
	}
	return i
}

// long handles the long option argv[i] and returns the index of its last
// word (its value's, when that is the next word).
func (w *simpleWrapper) long(u *Unwrapped, argv []string, i int) int {
	a := argv[i]
	name, val, hasVal := strings.Cut(a[2:], "=")
	o, why := w.lookupLong(name)
	if why != "" {
		u.opaque(a, fmt.Sprintf("%s runs other programs, and %s: %s", u.Name, why, a))
		return i
	}
	switch o.arg {
	case argNone:
		if hasVal {
			u.opaque(a, fmt.Sprintf("%s runs other programs, and its option --%s takes no value: %s", u.Name, o.long, a))
			return i
		}
	case argRequired:
		if !hasVal {
			if i+1 >= len(argv) {
				u.deny(rules.FlagValue, a, fmt.Sprintf("%s --%s needs a value", u.Name, o.long), "give the value, or leave the option out")
				return i
			}
			i++
			val = argv[i]
		}
	}
	w.apply(u, o, a, val)
	return i
}

// short handles the cluster of short options argv[i] (-iu NAME, -n5).
func (w *simpleWrapper) short(u *Unwrapped, argv []string, i int) int {
	a := argv[i]
	for j := 1; j < len(a); j++ {
		o, ok := w.lookupShort(a[j])
		if !ok {
			u.opaque(a, fmt.Sprintf("%s runs other programs, and clada does not know its option -%c", u.Name, a[j]))
			return i
		}
		if o.arg == argNone {
			w.apply(u, o, a, "")
			if u.Help {
				return i
			}
			continue
		}
		val := a[j+1:]
		if val == "" && o.arg == argRequired {
			if i+1 >= len(argv) {
				u.deny(rules.FlagValue, a, fmt.Sprintf("%s -%c needs a value", u.Name, a[j]), "give the value, or leave the option out")
				return i
			}
			i++
			val = argv[i]
		}
		w.apply(u, o, a, val)
		return i
	}
	return i
}

func (w *simpleWrapper) apply(u *Unwrapped, o wrapOpt, word, val string) {
	if o.long == "help" || o.long == "version" || (u.Name == "time" && (o.short == 'h' || o.short == 'V')) {
		u.Help = true
		return
	}
	if w.set != nil {
		w.set(u, o, word, val)
	}
}

func (w *simpleWrapper) lookupShort(c byte) (wrapOpt, bool) {
	for _, o := range w.opts {
		if o.short == c && c != 0 {
			return o, true
		}
	}
	return wrapOpt{}, false
}

// lookupLong finds a long option as getopt_long does: the exact name, or
// a unique prefix of one. It returns why not otherwise.
func (w *simpleWrapper) lookupLong(name string) (wrapOpt, string) {
	var found []wrapOpt
	for _, o := range w.opts {
		if o.long == "" {
			continue
		}
		if o.long == name {
			return o, ""
		}
		if name != "" && strings.HasPrefix(o.long, name) {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return wrapOpt{}, "clada does not know its option"
	case 1:
		return found[0], ""
	}
	return wrapOpt{}, "this abbreviation of its options is ambiguous"
}

// safeEnv are the variables env may set without asking: they change how
// programs format their output, never what they load, read or run. The
// values of those that name locales, terminals or zones are checked too
// (safeEnvValue): glibc reads a locale or zone named by a path, and
// TZ=/some/fifo hangs the program.
var safeEnv = map[string]bool{
	"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "COLORTERM": true,
	"NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true, "CLICOLOR_FORCE": true,
	"COLUMNS": true, "LINES": true,
}

// riskyEnv names variables, or prefixes ending in "*", that change what a
// program loads, reads or runs, with the reason shown at the prompt.
var riskyEnv = []struct{ name, why string }{
	{"LD_*", "which libraries programs load"},
	{"DYLD_*", "which libraries programs load"},
	{"PATH", "which programs run"},
	{"GIT_*", "what git reads, writes and runs"},
	{"NODE_OPTIONS", "what node loads and runs"},
	{"PYTHON*", "what python loads and runs"},
	{"PERL5OPT", "what perl loads and runs"},
	{"PERL5LIB", "what perl loads"},
	{"PERLLIB", "what perl loads"},
	{"RUBYOPT", "what ruby loads and runs"},
	{"RUBYLIB", "what ruby loads"},
	{"BASH_ENV", "which script bash runs first"},
	{"ENV", "which script sh runs first"},
	{"JAVA_TOOL_OPTIONS", "what java loads and runs"},
	{"_JAVA_OPTIONS", "what java loads and runs"},
	{"GOFLAGS", "which programs go runs"},
	{"HOME", "which configuration files programs read"},
	{"XDG_*", "which configuration files programs read"},
	{"TMPDIR", "where programs write temporary files"},
	{"SHELL", "which shell programs start"},
	{"EDITOR", "which editor programs start"},
	{"VISUAL", "which editor programs start"},
	{"PAGER", "which pager programs start"},
	{"IFS", "how shells split words"},
}

// envRisk returns why env NAME=VALUE needs the person, or "" when it is
// on the safe list with a plain value.
func envRisk(name, val string) string {
	if safeEnv[name] || strings.HasPrefix(name, "LC_") {
		if safeEnvValue(name, val) {
			return ""
		}
		return fmt.Sprintf("env sets %s to %q, which names a file", name, val)
	}
	for _, r := range riskyEnv {
		if n, ok := strings.CutSuffix(r.name, "*"); ok && strings.HasPrefix(name, n) || r.name == name {
			return "env sets " + name + ", which changes " + r.why
		}
	}
	if name == "" {
		return "env is given an assignment without a name"
	}
	return "env sets " + name + ", which clada does not know to be harmless"
}

// safeEnvValue reports whether val is a plain value for a safe name:
// locales, terminals and colour settings never hold a "/"; TZ may hold a
// zone name like Europe/Paris, never an absolute path or "..".
func safeEnvValue(name, val string) bool {
	if name != "TZ" {
		return isPlainValue(val)
	}
	v := strings.TrimPrefix(val, ":")
	if strings.HasPrefix(v, "/") {
		return false
	}
	for _, part := range strings.Split(v, "/") {
		if part == "" && v != "" || part == "." || part == ".." || !isPlainValue(part) {
			return false
		}
	}
	return true
}
