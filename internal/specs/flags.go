package specs

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// pathArg is a path that the command will open, with how it came.
type pathArg struct {
	arg   string // as written
	write bool
	flag  string // the flag whose value it is, "" for an operand
	after int    // how many operands came before it (tar xf a.tar m -C dir)
}

// parsed is an argv split by a spec.
type parsed struct {
	operands  []string        // non-flag words, in order
	flagPaths []pathArg       // values of path-typed flags
	pattern   bool            // a pattern flag (-e, -f) supplied the pattern
	target    bool            // an outpath flag (cp -t) names the destination
	seen      map[string]bool // flags given, by name (-r, --recursive)
	inner     [][]string      // commands of find's exec actions, as written ({} kept)
	unknown   string          // an ask = true spec: the first flag it does not know (asked, not denied)
	scripts   []string        // values of string pattern flags (sed -e, awk --source): inline scripts
}

// saw records flag name as given.
func (p *parsed) saw(name string) {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[name] = true
}

// any reports whether one of names was given.
func (p *parsed) any(names []string) bool {
	for _, n := range names {
		if p.seen[n] {
			return true
		}
	}
	return false
}

// destination returns the destination of a command that copies or moves
// paths into one place (cp, mv, ln, install): the value of its target
// flag (-t DIR) when it has one, "" when that flag names none; else the
// last of two or more operands. srcs are the operands that are not the
// destination (all of paths when dest is "").
func (p *parsed) destination(paths []string) (dest string, srcs []string) {
	switch {
	case p.target:
		for _, fp := range p.flagPaths {
			if fp.write {
				dest = fp.arg
			}
		}
	case len(paths) >= 2:
		return paths[len(paths)-1], paths[:len(paths)-1]
	}
	return dest, paths
}

// parseArgs splits args (argv without argv[0]) as the program would:
// getopt-style flags with permutation, or find's paths-then-expression.
func (sp *spec) parseArgs(args []string) (parsed, *rules.Denied) {
	if sp.tests != nil {
		return sp.parseFind(args)
	}
	var p parsed
	done := false
	dashDone := false // "--" ended the flags
	for i := 0; i < len(args); i++ {
		a := args[i]
		if sp.bsdOrder && !done && len(p.operands) > 0 && len(a) >= 2 && a[0] == '-' {
			return p, sp.optionAfterOperand(a, p.operands[0])
		}
		switch {
		case done && !dashDone && sp.subs == nil && len(a) > 1 && a[0] == '-' && !sp.ask:
			// xxd a.txt -p: without permutation, a flag after an
			// operand is a file name to the program. (An asked runner
			// without permutation, npx, hands everything after its
			// first operand to the program it runs: operands.)
			return p, &rules.Denied{Rule: rules.Spec, Word: a,
				Reason: fmt.Sprintf("%s takes %s after an operand as a file name, not as a flag", sp.name, a),
				Advice: "put every flag before the operands (" + sp.name + " " + a + " FILE), or write -- before a file named " + a}
		case done || a == "-" || len(a) < 2 || a[0] != '-' || sp.modeOperand && len(p.operands) == 0 && a != "--" && symbolicMode(a):
			p.operands = append(p.operands, a)
			// Without permutation (xxd) the first operand ends the flags:
			// xxd a.txt -p writes a file named -p.
			done = done || !sp.permute
		case a == "--":
			// "--" also reads as a symbolic mode (op "-", nothing after),
			// so the case above leaves it out: chmod -- u+s a.txt has the
			// mode u+s, as getopt ends the flags at "--".
			done, dashDone = true, true
		case sp.goFlags:
			n, err := sp.parseGoFlag(&p, args, i)
			if err != nil {
				return p, err
			}
			i = n
		case strings.HasPrefix(a, "--"):
			name, val, eq := strings.Cut(a, "=")
			t, ok := sp.flags[name]
			if !ok {
				if sp.askUnknownFlag(&p, name, a) {
					continue
				}
				return p, sp.unknownFlag(a, name, "")
			}
			p.saw(name)
			switch {
			case t == TypeBool:
				if eq {
					return p, sp.flagValueErr(a, name, "takes no value")
				}
				continue
			case t == TypeOpt:
				if strings.Contains(val, "/") {
					return p, sp.flagValueErr(a, name, fmt.Sprintf("takes a word, not a path (%q)", val))
				}
				continue
			case !eq:
				if i+1 >= len(args) {
					return p, sp.flagValueErr(a, name, "needs a value")
				}
				i++
				val = args[i]
			}
			if err := sp.flagValue(&p, a, name, t, val); err != nil {
				return p, err
			}
		case !sp.clusters:
			n, err := sp.parseWord(&p, args, i)
			if err != nil {
				return p, err
			}
			i = n
		default:
			if sp.numberOption && allDigits(a[1:]) {
				continue
			}
			if t, ok := sp.flags[a]; ok && len(a) > 2 {
				// A single-dash word flag (xxd -cols, -ps).
				p.saw(a)
				if t == TypeBool || t == TypeOpt {
					continue
				}
				var err *rules.Denied
				if i, err = sp.nextValue(&p, args, i, a, a, t); err != nil {
					return p, err
				}
				continue
			}
			if f, ok := sp.forbid[a]; ok && len(a) > 2 {
				return p, sp.forbidden(a, a, f)
			}
			for j := 1; j < len(a); j++ {
				name := "-" + a[j:j+1]
				t, ok := sp.flags[name]
				if !ok {
					if sp.askUnknownFlag(&p, name, a) {
						break
					}
					return p, sp.unknownFlag(a, name, a)
				}
				p.saw(name)
				if t == TypeBool {
					continue
				}
				rest := a[j+1:]
				if t == TypeOpt {
					if strings.Contains(rest, "/") {
						return p, sp.flagValueErr(a, name, fmt.Sprintf("takes a word, not a path (%q)", rest))
					}
					break
				}
				var val string
				switch {
				case sp.shortValues == ShortSeparate && rest != "":
					return p, sp.flagValueErr(a, name, "must end its word, with the value as the next word ("+name+" VALUE)")
				case rest != "":
					val = rest
				case i+1 >= len(args):
					return p, sp.flagValueErr(a, name, "needs a value")
				default:
					i++
					val = args[i]
				}
				if err := sp.flagValue(&p, a, name, t, val); err != nil {
					return p, err
				}
				break
			}
		}
	}
	return p, nil
}

// parseWord parses args[i], a single-dash word, for a spec whose short flags
// never combine (clusters = false), and returns the index of the last word
// used. xxd identifies an option by its first two letters and ignores the
// rest of a boolean's word: -al is -a, so xxd -al 5 .git/config reads 5
// and writes .git/config. So a word must be exactly a listed flag, or a
// listed value flag with its value attached (-l64); -al, -pl, -ac are
// unknown.
func (sp *spec) parseWord(p *parsed, args []string, i int) (int, *rules.Denied) {
	a := args[i]
	if t, ok := sp.flags[a]; ok {
		p.saw(a)
		if t == TypeBool || t == TypeOpt {
			return i, nil
		}
		if i+1 >= len(args) {
			return i, sp.flagValueErr(a, a, "needs a value")
		}
		return i + 1, sp.flagValue(p, a, a, t, args[i+1])
	}
	if f, ok := sp.forbid[a]; ok {
		return i, sp.forbidden(a, a, f)
	}
	name := a[:2]
	if f, ok := sp.forbid[name]; ok {
		return i, sp.forbidden(a, name, f+" ("+sp.name+" reads "+a+" as "+name+")")
	}
	if t, ok := sp.flags[name]; ok && t != TypeBool && t != TypeOpt {
		p.saw(name)
		return i, sp.flagValue(p, a, name, t, a[2:])
	}
	return i, &rules.Denied{
		Rule: rules.UnknownFlag,
		Word: a,
		Reason: sp.name + " " + a + " is not a flag in clada's spec for " + sp.name + ", whose flags never combine: " + sp.name +
			" does not read a word of several letters as getopt does (xxd takes -al for -a, GNU sed -iE for -i with the suffix E)",
		Advice: "write each flag as its own word (-a -l 5, not -al 5); " + sp.flagAdvice(),
	}
}

// parseFind parses find's command line: leading options from flags, then
// starting points, then an expression made only of operators and the
// listed tests.
func (sp *spec) parseFind(args []string) (parsed, *rules.Denied) {
	var p parsed
	i := 0
	for ; i < len(args); i++ {
		t, ok := sp.flags[args[i]]
		if !ok {
			break
		}
		if t != TypeBool {
			var err *rules.Denied
			if i, err = sp.nextValue(&p, args, i, args[i], args[i], t); err != nil {
				return p, err
			}
		}
	}
	for ; i < len(args) && !findExprStart(args[i]); i++ {
		p.operands = append(p.operands, args[i])
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch a {
		case "(", ")", "!", ",":
			continue
		}
		if slices.Contains(sp.execActions, a) {
			// -exec CMD ARG... ; or -exec CMD ARG... {} + runs CMD.
			j := i + 1
			for j < len(args) && args[j] != ";" && !(args[j] == "+" && args[j-1] == "{}") {
				j++
			}
			if j >= len(args) || j == i+1 {
				return p, &rules.Denied{Rule: rules.Spec, Word: a, Reason: sp.name + " " + a + " needs a command ended by ';' or '{} +'", Advice: "end the command with a quoted ';' (\\; or ';') or with {} +: find . -name x " + a + " wc -l {} \\;"}
			}
			p.saw(a)
			p.inner = append(p.inner, args[i+1:j])
			i = j
			continue
		}
		t, ok := sp.tests[a]
		if !ok {
			if !strings.HasPrefix(a, "-") {
				return p, &rules.Denied{Rule: rules.Spec, Word: a, Reason: sp.name + ": " + a + " comes after the expression started; starting points must come first", Advice: "put every path before the first test, e.g. find dir -name '*.go'"}
			}
			return p, sp.unknownFlag(a, a, "")
		}
		p.saw(a)
		if t == TypeBool {
			continue
		}
		var err *rules.Denied
		if i, err = sp.nextValue(&p, args, i, a, a, t); err != nil {
			return p, err
		}
	}
	return p, nil
}

// askUnknownFlag records, for an ask = true spec or the parent of
// subcommands, a flag it does not know (word, named name) and reports
// true: the command is asked, and the person sees the flag. A forbidden
// flag is never just asked.
func (sp *spec) askUnknownFlag(p *parsed, name, word string) bool {
	if !sp.ask && sp.subs == nil {
		return false
	}
	if _, ok := sp.forbid[name]; ok {
		return false
	}
	if p.unknown == "" {
		p.unknown = word
	}
	return true
}

// findExprStart reports whether a starts find's expression, as find
// itself decides: a word starting with -, or an operator.
func findExprStart(a string) bool {
	return strings.HasPrefix(a, "-") && a != "-" || a == "(" || a == ")" || a == "!" || a == ","
}

// flagValue checks the value of flag name (written as word) and records
// paths and pattern flags.
// nextValue takes the word after args[i] as the value of flag name,
// written as word, and returns the index of that value word.
func (sp *spec) nextValue(p *parsed, args []string, i int, word, name string, t ValueType) (int, *rules.Denied) {
	if i+1 >= len(args) {
		return i, sp.flagValueErr(word, name, "needs a value")
	}
	return i + 1, sp.flagValue(p, word, name, t, args[i+1])
}

func (sp *spec) flagValue(p *parsed, word, name string, t ValueType, val string) *rules.Denied {
	if slices.Contains(sp.modeFlags, name) {
		if err := checkMode(sp.name+" "+name, val); err != nil {
			return err
		}
	}
	if sp.patternFlags[name] {
		p.pattern = true
		if t == TypeString {
			p.scripts = append(p.scripts, val)
		}
	}
	switch t {
	case TypeInt:
		if !validInt(val) {
			return sp.flagValueErr(word, name, fmt.Sprintf("takes a number, not %q", val))
		}
	case TypeDate:
		// GNU date strings accept TZ="NAME" or TZ="/file", and the
		// program then opens that time zone file: any path, even a
		// FIFO that hangs it.
		if strings.Contains(strings.ToUpper(val), "TZ=") {
			return &rules.Denied{
				Rule:   rules.FlagValue,
				Word:   word,
				Reason: fmt.Sprintf("%s %s %q sets a time zone with TZ=, which makes %s open a time zone file clada does not check", sp.name, name, val, sp.name),
				Advice: "leave TZ= out of the date (use -u for UTC, or a numeric offset like +02:00)",
			}
		}
	case TypePath:
		p.flagPaths = append(p.flagPaths, pathArg{arg: val, flag: name, after: len(p.operands)})
	case TypeOutPath:
		p.flagPaths = append(p.flagPaths, pathArg{arg: val, write: true, flag: name, after: len(p.operands)})
		p.target = true
	}
	return nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validInt accepts what clada treats as a number: an optional sign,
// decimal digits or 0x and hex digits, then at most three unit letters
// (10K, 1MiB, 5s). Such a word can never name a path outside the root.
func validInt(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	n := 0
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
		for n < len(s) && isHex(s[n]) {
			n++
		}
	} else {
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
	}
	if n == 0 {
		return false
	}
	unit := s[n:]
	if len(unit) > 3 {
		return false
	}
	for i := 0; i < len(unit); i++ {
		if c := unit[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unknownFlag denies flag name (in word, in cluster when it came from a
// combined short flag).
func (sp *spec) unknownFlag(word, name, cluster string) *rules.Denied {
	if f, ok := sp.forbid[name]; ok {
		return sp.forbidden(word, name, f)
	}
	reason := sp.name + " " + name + " is not in clada's spec for " + sp.name
	if cluster != "" && cluster != name {
		reason = sp.name + " " + name + " (in " + cluster + ") is not in clada's spec for " + sp.name
	}
	if strings.HasPrefix(name, "--") {
		reason += "; long options must be written in full, without abbreviation"
	}
	return &rules.Denied{Rule: rules.UnknownFlag, Word: word, Reason: reason, Advice: sp.flagAdvice()}
}

func (sp *spec) forbidden(word, name, why string) *rules.Denied {
	return &rules.Denied{
		Rule:   rules.UnknownFlag,
		Word:   word,
		Reason: sp.name + " " + name + ": " + why,
		Advice: "leave out " + name + ", or ask the person to run it; " + sp.flagAdvice(),
	}
}

func (sp *spec) flagValueErr(word, name, what string) *rules.Denied {
	return &rules.Denied{
		Rule:   rules.FlagValue,
		Word:   word,
		Reason: sp.name + " " + name + " " + what,
		Advice: "give " + name + " a valid value",
	}
}

// flagAdvice lists a few allowed flags.
func (sp *spec) flagAdvice() string {
	src := sp.flags
	what := "flags"
	if sp.tests != nil {
		src, what = sp.tests, "tests"
	}
	if len(src) == 0 {
		return sp.name + " takes no flags here"
	}
	keys := make([]string, 0, len(src))
	for k := range src {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 14 {
		keys = append(keys[:14], "…")
	}
	return "allowed " + what + " for " + sp.name + ": " + strings.Join(keys, " ")
}

// parseGoFlag parses args[i] as the flag package of Go reads it (go,
// gofmt): -name or --name, a value attached with = or in the next word,
// a bool flag only with =true or =false. Flags never combine. It returns
// the index of the last word used.
func (sp *spec) parseGoFlag(p *parsed, args []string, i int) (int, *rules.Denied) {
	a := args[i]
	word, val, eq := strings.Cut(a, "=")
	name := "-" + strings.TrimLeft(word, "-")
	t, ok := sp.flags[name]
	if !ok {
		if sp.askUnknownFlag(p, name, a) {
			return i, nil
		}
		return i, sp.unknownFlag(a, name, "")
	}
	p.saw(name)
	switch {
	case t == TypeBool || t == TypeOpt:
		if eq && val != "true" && val != "false" {
			return i, sp.flagValueErr(a, name, "takes true or false")
		}
		return i, nil
	case !eq:
		if i+1 >= len(args) {
			return i, sp.flagValueErr(a, name, "needs a value")
		}
		i++
		val = args[i]
	}
	return i, sp.flagValue(p, a, name, t, val)
}
