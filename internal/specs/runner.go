package specs

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// Project runners, subcommands and the asks of a spec (docs/specs.md).
//
// A spec with ask = true checks its flags and paths as any spec does,
// and a command that fits is asked (rules.SpecAsk) until a pattern covers
// it: builds and tests run the project's own code. ask_flags and
// ask_operands ask only with those flags (tar -x) or with an operand (npm
// run NAME); dry_flags make an ask = true command a dry run, allowed (go
// clean -n). A spec with sub tables covers only the subcommands it lists;
// any other subcommand, and a flag the parent does not know, is asked as
// if the program had no spec. Every spec'd program and subcommand accepts
// a lone --help or --version.

// buildRunner reads and validates the fields of docs/specs.md (ask, sub,
// guard, the tool forms) into sp, building the subcommand specs; key is
// the TOML table of sp, for errors.
func (sp *spec) buildRunner(name, key, file string, in fileSpec, isSub bool, bad func(f, format string, args ...any) *SpecError) *SpecError {
	sp.ask = bool(in.Ask)
	sp.askReason = string(in.AskReason)
	sp.askOperands = string(in.AskOperands)
	sp.askBare = string(in.AskBare)
	for _, f := range in.CheckLists {
		if t, ok := sp.flags[f]; !ok || t != TypeBool {
			return bad("check_lists", "%s is not a bool flag in flags", f)
		}
		sp.checkLists = append(sp.checkLists, f)
	}
	if in.PlainOperands != "" {
		if sp.askOperands == "" {
			return bad("plain_operands", "needs ask_operands: it names the operands that are not asked")
		}
		re, err := regexp.Compile("^(?:" + string(in.PlainOperands) + ")$")
		if err != nil {
			return bad("plain_operands", "%q is not a regular expression: %v", string(in.PlainOperands), err)
		}
		sp.plainOperands = re
	}
	sp.asked = in.Asked
	sp.bundled = bool(in.Bundled)
	sp.noRemote = bool(in.NoRemote)
	sp.guard, sp.guardProbe, sp.guardRefuse = in.Guard, in.GuardProbe, in.GuardRefuse
	sp.modeOperand = bool(in.ModeOperand)
	for _, f := range in.ModeFlags {
		if t, ok := sp.flags[f]; !ok || t != TypeString {
			return bad("mode_flags", "%s is not a string flag in flags", f)
		}
		sp.modeFlags = append(sp.modeFlags, f)
	}
	for _, f := range in.CopiesMode {
		if _, ok := sp.flags[f]; !ok {
			return bad("copies_mode", "%s is not in flags", f)
		}
		sp.copiesMode = append(sp.copiesMode, f)
	}
	sp.link = bool(in.Link)
	sp.goFlags = bool(in.GoFlags)
	sp.noHelp = bool(in.NoHelp)
	for _, k := range slices.Sorted(maps.Keys(in.ScriptAsks)) {
		re, err := regexp.Compile(k)
		if err != nil {
			return bad("script_asks", "%q is not a regular expression: %v", k, err)
		}
		sp.scriptAsks = append(sp.scriptAsks, scriptAsk{re, in.ScriptAsks[k]})
	}
	switch sp.scriptCheck = string(in.ScriptCheck); sp.scriptCheck {
	case "":
	case "awk":
		if sp.positionals != 1 {
			return bad("script_check", "the program is the one leading operand (or a pattern flag's value): set positionals = 1")
		}
	default:
		return bad("script_check", "%q is not a checker clada has (awk)", sp.scriptCheck)
	}
	if len(sp.scriptAsks) > 0 && sp.positionals != 1 {
		return bad("script_asks", "the script is the one leading operand (or a pattern flag's value): set positionals = 1")
	}
	for _, e := range in.Env {
		if n, _, ok := strings.Cut(e, "="); !ok || n == "" || strings.ContainsAny(n, " \t") {
			return bad("env", "%q must be NAME=VALUE", e)
		}
		sp.env = append(sp.env, e)
	}
	for _, f := range in.ChdirFlags {
		if t, ok := sp.flags[f]; !ok || t != TypePath {
			return bad("chdir_flags", "%s is not a path flag in flags", f)
		}
		sp.chdirFlags = append(sp.chdirFlags, f)
	}
	sp.askFlags = map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(in.AskFlags)) {
		if _, ok := sp.flags[k]; !ok {
			if _, ok := sp.tests[k]; !ok {
				return bad("ask_flags", "%s is not in flags", k)
			}
		}
		sp.askFlags[k] = in.AskFlags[k]
	}
	for _, f := range in.DryFlags {
		if _, ok := sp.flags[f]; !ok {
			return bad("dry_flags", "%s is not in flags", f)
		}
		sp.dryFlags = append(sp.dryFlags, f)
	}
	if len(sp.dryFlags) > 0 && !sp.ask {
		return bad("dry_flags", "only an ask = true spec has a dry run")
	}
	for _, f := range in.WritesWith {
		if _, ok := sp.flags[f]; !ok {
			return bad("writes_with", "%s is not in flags", f)
		}
		sp.writesWith = append(sp.writesWith, f)
	}
	for _, f := range in.ExecActions {
		if sp.tests == nil {
			return bad("exec_actions", "only a find-style spec (tests) has actions")
		}
		if _, ok := sp.tests[f]; ok {
			return bad("exec_actions", "%s is also a test", f)
		}
		sp.execActions = append(sp.execActions, f)
	}
	if len(sp.guard) > 0 && (isSub || len(sp.guardProbe) == 0) {
		return bad("guard", "a guard needs a guard_probe, and belongs to a whole program, not a subcommand")
	}
	if len(sp.guardProbe) > 0 && len(sp.guard) == 0 {
		return bad("guard_probe", "guard_probe without guard")
	}
	if sp.modeOperand && sp.positionals != 1 {
		return bad("mode_operand", "the mode is the one leading operand: set positionals = 1")
	}
	if !isSub && len(in.Aliases) > 0 {
		return bad("aliases", "only a subcommand has aliases")
	}
	sp.aliases = in.Aliases
	if len(in.Sub) > 0 {
		if sp.tests != nil || sp.bundled {
			return bad("sub", "a spec with subcommands takes no tests and no bundle")
		}
		// The first operand is the subcommand: the parent's flags come
		// before it, and everything after it is the subcommand's.
		sp.permute = false
		sp.subs = map[string]*spec{}
		for _, sn := range slices.Sorted(maps.Keys(in.Sub)) {
			if sn == "" || strings.HasPrefix(sn, "-") && !strings.Contains(sn, " ") {
				return bad("sub", "subcommand %q must be a word (or a flag and its value, as \"-m pytest\")", sn)
			}
			sub, err := buildSpecAt(name+" "+sn, key+".sub."+sn, file, in.Sub[sn], true)
			if err != nil {
				return err
			}
			if sp.goFlags {
				sub.inheritGoFlags()
			}
			sp.subNames = append(sp.subNames, sn)
			for _, w := range append([]string{sn}, sub.aliases...) {
				if _, dup := sp.subs[w]; dup {
					return bad("sub", "subcommand or alias %q given twice", w)
				}
				sp.subs[w] = sub
			}
		}
	}
	return nil
}

// setPack records the pack of an embedded spec and its subcommands.
func (sp *spec) setPack(pack string) {
	sp.pack = pack
	for _, sub := range sp.subs {
		sub.pack = pack
	}
}

// firstWord is the program of a spec name ("go" of "go build").
func firstWord(name string) string {
	w, _, _ := strings.Cut(name, " ")
	return w
}

// helpOnly reports whether args is a lone --help or --version, which
// every spec'd program and subcommand accepts: it prints and exits.
func helpOnly(args []string) bool {
	return len(args) == 1 && (args[0] == "--help" || args[0] == "--version")
}

// execFor is what runs for argv under sp: the program, the hardening and
// guard arguments, then the model's arguments.
func (sp *spec) execFor(argv []string) []string {
	exec := make([]string, 0, 1+len(sp.harden)+len(sp.guard)+len(argv)-1)
	exec = append(exec, argv[0])
	exec = append(exec, sp.harden...)
	exec = append(exec, sp.guard...)
	return append(exec, argv[1:]...)
}

// checkSub decides argv under a spec with subcommands: the parent's flags,
// then the subcommand, decided by its own spec.
func (sp *spec) checkSub(argv []string, dir string, r *Resolver) Verdict {
	args := argv[1:]
	// A subcommand written as a flag and its value ("-m pytest") is
	// matched at the very start.
	for _, sn := range sp.subNames {
		words := strings.Fields(sn)
		if len(words) > 1 && len(args) >= len(words) && strings.Join(args[:len(words)], " ") == sn {
			return sp.subVerdict(argv, len(words), sp.subs[sn], nil, dir, r)
		}
	}
	p, derr := sp.parseArgs(args)
	if derr != nil {
		return denyVerdict(derr)
	}
	touched, deny, ok := sp.confineFlagPaths(p.flagPaths, dir, r)
	if !ok {
		return deny
	}
	if len(p.operands) == 0 {
		return sp.checkPlain(argv, dir, r)
	}
	k := len(args) - len(p.operands) // index of the subcommand word
	sub := sp.subs[args[k]]
	if sub == nil {
		if p.unknown != "" {
			return sp.askUnknown(p.unknown, fmt.Sprintf("%s %s is not in clada's spec for %s", sp.name, p.unknown, sp.name))
		}
		return sp.askUnknown(args[k], fmt.Sprintf("%s %s is not a subcommand in clada's spec for %s", sp.name, args[k], sp.name))
	}
	// go -C DIR changes to DIR before anything: the subcommand opens its
	// operands from there (go -C src fmt ext/x.go, with src/ext a symlink
	// out) and writes there (go -C .git mod init writes .git/go.mod).
	subDir := dir
	for _, fp := range p.flagPaths {
		if !slices.Contains(sp.chdirFlags, fp.flag) {
			continue
		}
		res, err := r.Confine(subDir, fp.arg, true)
		if err != nil {
			return denyErr(err)
		}
		subDir = res
	}
	v := sp.subVerdict(argv, k+1, sub, touched, subDir, r)
	if p.unknown != "" && v.Outcome != Deny {
		// The subcommand fits; the parent's unknown flag is the person's
		// to judge.
		return sp.askUnknown(p.unknown, fmt.Sprintf("%s %s is not in clada's spec for %s", sp.name, p.unknown, sp.name))
	}
	return v
}

// subVerdict decides the subcommand sub, whose arguments start at
// args[n] (argv[n+1]); touched are the parent's flag paths.
func (sp *spec) subVerdict(argv []string, n int, sub *spec, touched []Path, dir string, r *Resolver) Verdict {
	args := argv[1:]
	subArgv := append([]string{argv[0]}, args[n:]...)
	v := sub.check(subArgv, dir, r)
	if len(v.Exec) > 0 {
		exec := make([]string, 0, len(argv)+len(sp.harden)+len(v.Exec))
		exec = append(exec, argv[0])
		exec = append(exec, sp.harden...)
		exec = append(exec, args[:n]...)
		v.Exec = append(exec, v.Exec[1:]...)
	}
	v.Paths = append(touched, v.Paths...)
	v.grant(sub)
	return v
}

// askUnknown asks about a subcommand or flag that a runner's spec does not
// know: as for a program without a spec, the person decides.
func (sp *spec) askUnknown(word, why string) Verdict {
	return Verdict{Outcome: Ask, Rule: rules.SpecAsk, Arg: word,
		Reason: why + ", so the person must approve it",
		Advice: "use what `clada specs " + firstWord(sp.name) + "` lists, or wait for the person to approve"}
}

// askWhy says why a command that fits sp is asked, "" when it is not.
func (sp *spec) askWhy(p parsed) string {
	if len(p.inner) > 0 {
		return ""
	}
	for _, f := range slices.Sorted(maps.Keys(sp.askFlags)) {
		if p.seen[f] {
			return sp.name + " " + f + " " + sp.askFlags[f]
		}
	}
	if sp.askOperands != "" {
		for _, op := range p.operands {
			if sp.plainOperands == nil || !sp.plainOperands.MatchString(op) {
				return sp.name + " " + op + " " + sp.askOperands
			}
		}
	}
	if sp.askBare != "" && len(p.operands) == 0 {
		return sp.name + " " + sp.askBare
	}
	if p.unknown != "" {
		return sp.name + " " + p.unknown + " is not in clada's spec for " + sp.name
	}
	if sp.ask && !p.any(sp.dryFlags) {
		if sp.askReason != "" {
			return sp.name + " " + sp.askReason
		}
		return sp.name + " runs the project's code"
	}
	return ""
}

// remotePath reports whether tar and the like read p as host:file, a
// file on another machine reached with rsh: a ':' before the first '/'.
func remotePath(p string) bool {
	i := strings.IndexByte(p, ':')
	return i > 0 && !strings.Contains(p[:i], "/")
}

func remoteDeny(name, arg string) Verdict {
	return Verdict{Outcome: Deny, Rule: rules.PathOutsideRoot, Arg: arg,
		Reason: fmt.Sprintf("%s reads %s as HOST:FILE, a file on another machine reached with a remote shell", name, arg),
		Advice: "name a local file without ':' (./" + arg + " also names another host; rename the file)"}
}

// printRunner adds the runner fields to `clada specs NAME`.
func (sp *spec) printRunner(b *strings.Builder, indent string) {
	if sp.ask {
		why := sp.askReason
		if why == "" {
			why = "runs the project's code"
		}
		fmt.Fprintf(b, "%sasked: %s (a pattern such as `clada allow '%s *'` consents)\n", indent, why, sp.name)
		if len(sp.dryFlags) > 0 {
			fmt.Fprintf(b, "%swith %s only prints what it would do: allowed\n", indent, strings.Join(sp.dryFlags, " "))
		}
		b.WriteString(indent + "a flag not listed is asked, not denied\n")
	}
	for _, f := range slices.Sorted(maps.Keys(sp.askFlags)) {
		fmt.Fprintf(b, "%sasked with %s: %s\n", indent, f, sp.askFlags[f])
	}
	if sp.askOperands != "" {
		if sp.plainOperands != nil {
			fmt.Fprintf(b, "%sasked with an operand other than %s: %s\n", indent, strings.TrimSuffix(strings.TrimPrefix(sp.plainOperands.String(), "^(?:"), ")$"), sp.askOperands)
		} else {
			fmt.Fprintf(b, "%sasked with an operand: %s\n", indent, sp.askOperands)
		}
	}
	if sp.askBare != "" {
		fmt.Fprintf(b, "%sasked without an operand: %s\n", indent, sp.askBare)
	}
	if len(sp.checkLists) > 0 {
		fmt.Fprintf(b, "%swith %s every operand is a checksum list, and each file it names is confined as a read (a list on standard input is asked)\n", indent, strings.Join(sp.checkLists, " "))
	}
	if sp.bundled {
		b.WriteString(indent + "the first word may be a bundle of flags without a dash (tar cf X): each flag's value is the next word\n")
	}
	if len(sp.writesWith) > 0 {
		fmt.Fprintf(b, "%soutpath flags are written with %s, read otherwise\n", indent, strings.Join(sp.writesWith, " "))
	}
	if sp.noRemote {
		b.WriteString(indent + "a path with ':' before its first '/' (HOST:FILE) is denied\n")
	}
	if len(sp.guard) > 0 {
		fmt.Fprintf(b, "%salways runs with %s where the installed program accepts it (checked once: %s %s); asked elsewhere\n",
			indent, strings.Join(sp.guard, " "), sp.name, strings.Join(sp.guardProbe, " "))
	}
	if sp.modeOperand {
		b.WriteString(indent + "the first operand is a mode; setuid and setgid bits are denied\n")
	}
	if len(sp.modeFlags) > 0 {
		fmt.Fprintf(b, "%sthe values of %s are modes; setuid and setgid bits are denied\n", indent, strings.Join(sp.modeFlags, " "))
	}
	if len(sp.copiesMode) > 0 {
		fmt.Fprintf(b, "%swith %s, a file it reads that has the setuid or setgid bit is denied (its mode would be copied)\n", indent, strings.Join(sp.copiesMode, " "))
	}
	if sp.noHelp {
		b.WriteString(indent + "--help and --version are not special: the program loads project code for them\n")
	}
	if len(sp.env) > 0 {
		fmt.Fprintf(b, "%salways runs with the environment: %s\n", indent, strings.Join(sp.env, " "))
	}
	if sp.link {
		b.WriteString(indent + "every target and link is confined and written; with -s a target is resolved from the link's directory\n")
	}
	if len(sp.execActions) > 0 {
		fmt.Fprintf(b, "%s%s asked, showing the command; denied when that command would be denied alone\n", indent, strings.Join(sp.execActions, " "))
	}
	if len(sp.subNames) > 0 {
		fmt.Fprintf(b, "%ssubcommands (any other is asked):\n", indent)
		names := append([]string(nil), sp.subNames...)
		sort.Strings(names)
		for _, n := range names {
			sub := sp.subs[n]
			head := n
			if len(sub.aliases) > 0 {
				head += " (" + strings.Join(sub.aliases, ", ") + ")"
			}
			fmt.Fprintf(b, "%s  %s", indent, head)
			if sub.description != "" {
				fmt.Fprintf(b, ": %s", sub.description)
			}
			b.WriteByte('\n')
		}
	}
	for _, ex := range sp.asked {
		fmt.Fprintf(b, "%sask:   %s\n", indent, ex)
	}
}

// withSubs returns sp and, depth first, every subcommand spec under it.
func (sp *spec) withSubs() []*spec {
	out := []*spec{sp}
	for _, n := range sp.subNames {
		out = append(out, sp.subs[n].withSubs()...)
	}
	return out
}

// seenOf returns those of names that p saw, in order.
func (sp *spec) seenOf(p parsed, names []string) []string {
	var out []string
	for _, n := range names {
		if p.seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// inheritGoFlags makes sp and its subcommands parse Go-style flags, as
// their program does.
func (sp *spec) inheritGoFlags() {
	sp.goFlags = true
	for _, n := range sp.subNames {
		sp.subs[n].inheritGoFlags()
	}
}

// scriptAsk is one entry of script_asks: a pattern of the program's script
// (jq's filter, awk's program) and why a script matching it is asked.
type scriptAsk struct {
	re  *regexp.Regexp
	why string
}

// maxScriptFile bounds the script file (jq -f, awk -f) clada reads to
// look for script_asks; a larger one is asked.
const maxScriptFile = 256 << 10

// scriptWhy says why the scripts of a command are asked: inline scripts
// (the leading operand, string values of pattern flags) and script files
// (path values of pattern flags, resolved in files), "" when none matches.
func (sp *spec) scriptWhy(inline []string, files []Path) string {
	if len(sp.scriptAsks) == 0 {
		return ""
	}
	check := func(text, where string) string {
		for _, sa := range sp.scriptAsks {
			if m := sa.re.FindString(text); m != "" {
				return fmt.Sprintf("%s %s %q: %s", sp.name, where, m, sa.why)
			}
		}
		return ""
	}
	for _, s := range inline {
		if why := check(s, "script uses"); why != "" {
			return why
		}
	}
	for _, f := range files {
		fi, err := os.Stat(f.Resolved)
		if err != nil || !fi.Mode().IsRegular() {
			continue // the program fails, or reads stdin (-)
		}
		if fi.Size() > maxScriptFile {
			return fmt.Sprintf("%s's script file %s is too large for clada to check", sp.name, f.Arg)
		}
		data, err := os.ReadFile(f.Resolved)
		if err != nil {
			return fmt.Sprintf("%s's script file %s could not be read: %v", sp.name, f.Arg, err)
		}
		if why := check(string(data), "script file "+f.Arg+" uses"); why != "" {
			return why
		}
	}
	return ""
}

// checkScript runs the spec's script checker on the program of one
// command: its program files (the path values of pattern flags, in
// files), then its inline sources (the leading operand, string values of
// pattern flags), joined with newlines as awk joins them. A program file
// clada cannot read whole (missing, not a regular file, such as - for
// standard input, or over maxScriptFile) is asked: what awk would run is
// unknown. "" when the program passes; streams as awkWhy's.
func (sp *spec) checkScript(files []Path, inline []string) (why string, streams bool) {
	var src []string
	for _, f := range files {
		fi, err := os.Stat(f.Resolved)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("%s's program file %s does not exist, so clada cannot check what it does", sp.name, f.Arg), false
		case err != nil:
			return fmt.Sprintf("%s's program file %s could not be read (%v), so clada cannot check what it does", sp.name, f.Arg, err), false
		case !fi.Mode().IsRegular():
			return fmt.Sprintf("%s's program file %s is not a regular file, so clada cannot check what it does", sp.name, f.Arg), false
		case fi.Size() > maxScriptFile:
			return fmt.Sprintf("%s's program file %s is too large for clada to check", sp.name, f.Arg), false
		}
		data, err := os.ReadFile(f.Resolved)
		if err != nil {
			return fmt.Sprintf("%s's program file %s could not be read (%v), so clada cannot check what it does", sp.name, f.Arg, err), false
		}
		src = append(src, string(data))
	}
	src = append(src, inline...)
	if len(src) == 0 {
		return "", false // no program: awk prints its usage
	}
	why, streams = awkWhy(strings.Join(src, "\n"))
	if why != "" {
		return sp.name + " program: " + why, false
	}
	return "", streams
}

// isAwkAssign says whether an awk operand is an assignment NAME=VALUE,
// which sets a variable and opens nothing. Awk takes an operand so when
// the part before = is an identifier; a keyword or built-in function name
// there (if=x) is left a path, as some awks then treat it as a file.
func isAwkAssign(op string) bool {
	name, _, ok := strings.Cut(op, "=")
	if !ok || name == "" || awkReserved[name] {
		return false
	}
	for i, c := range name {
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && (i == 0 || !('0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// awkReserved are awk's keywords and built-in function names.
var awkReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("BEGIN END BEGINFILE ENDFILE function func if else while for do break continue next nextfile exit return delete in getline print printf switch case default " +
		"atan2 close cos exp fflush gsub index int length log match rand sin split sprintf sqrt srand sub substr system tolower toupper " +
		"gensub strftime systime mktime and or xor lshift rshift compl strtonum asort asorti patsplit isarray typeof bindtextdomain dcgettext dcngettext") {
		m[w] = true
	}
	return m
}()

// Summary sorts the effective specs for the model's instructions: allowed
// are the programs a spec allows without asking, a program with
// subcommands followed by those it allows ("go (doc, env, …)"); asked
// are the project runners, asked until the person consents ("make", "go
// build", "python -m pytest"). A spec that fails to decode is left out
// (TestDefaultSpecs keeps the embedded ones whole).
func (s *Set) Summary() (allowed, asked []string) {
	for _, name := range s.Names() {
		sp, err := s.spec(name)
		if err != nil || sp == nil {
			continue
		}
		if sp.subs == nil {
			if sp.ask {
				asked = append(asked, name)
			} else {
				allowed = append(allowed, name)
			}
			continue
		}
		var yes, no []string
		var walk func(prefix string, sp *spec)
		walk = func(prefix string, sp *spec) {
			for _, n := range sp.subNames {
				sub := sp.subs[n]
				if sub.subs != nil {
					walk(prefix+n+" ", sub)
					continue
				}
				if sub.ask {
					no = append(no, prefix+n)
				} else {
					yes = append(yes, prefix+n)
				}
			}
		}
		walk("", sp)
		if len(yes) > 0 {
			allowed = append(allowed, name+" ("+strings.Join(yes, ", ")+")")
		}
		for _, n := range no {
			asked = append(asked, name+" "+n)
		}
	}
	return allowed, asked
}
