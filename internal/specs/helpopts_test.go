package specs

import (
	"bufio"
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpecsAgainstPrograms checks every embedded spec against the program
// it describes (issue 29): the options the installed program documents,
// in `PROG --help` (`go help SUB`, `npm SUB --help`, `cargo SUB --help` for
// subcommands) and in its man page where there is one, must each be in the
// spec (flags, forbid, ask_flags, find's tests) or listed in
// testdata/options_known.txt with the reason it is deliberately not
// allowed. So a new option of a program, or one the spec's author missed,
// is decided by a person rather than left to "unknown flag". A line of
// that file the installed program does not document is only logged: an
// older version of the program may lack it.
//
// Linux only: the specs' flags are GNU's (the BSD dialect is described by
// bsd_flags, checked by the examples). A program missing here is listed in
// the log; under CI=true a missing one .ci/run installs fails the test.
func TestSpecsAgainstPrograms(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the specs' options are GNU's; the BSD dialect is checked by its examples")
	}
	if testing.Short() {
		t.Skip("runs every program's --help and man page")
	}
	known := readKnownOptions(t)
	s, _ := Default()
	var missing []string
	seen := map[string]bool{} // "prog\topt" entries of known that were used
	var cmds []specCommand
	for _, name := range s.Names() {
		sp, err := s.spec(name)
		if err != nil || sp == nil {
			t.Fatalf("spec %s: %v", name, err)
		}
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name)
			continue
		}
		cmds = append(cmds, specCommands(name, sp)...)
	}
	// man and npm mostly wait: run them side by side.
	docsOf := make([]map[string]string, len(cmds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			docsOf[i] = documentedOptions(t, c.argv)
		}()
	}
	wg.Wait()
	{
		for i, c := range cmds {
			docs := docsOf[i]
			if len(docs) == 0 && len(c.sp.flags) == 0 {
				continue // documents no option, and the spec allows none (go help, go mod verify)
			}
			if len(docs) == 0 {
				t.Errorf("%s: no option found in %s (a parser that reads nothing checks nothing)", c.label, strings.Join(c.sources, ", "))
				continue
			}
			var asked []string
			for _, o := range slices.Sorted(maps.Keys(docs)) {
				if c.covers(o) {
					continue
				}
				if c.sp.ask {
					// A runner (ask = true) asks about a flag its spec does
					// not know, naming it; the ones that run programs the
					// command names are in its forbid.
					asked = append(asked, o)
					continue
				}
				if k, ok := knownKey(known, c.label, o); ok {
					seen[k] = true
					continue
				}
				t.Errorf("%s documents %s (%s), which is neither in its spec nor in testdata/options_known.txt: add it to the spec, typed, or list it there with the reason it is not allowed", c.label, o, docs[o])
			}
			if len(asked) > 0 {
				t.Logf("%s (a runner: asked, naming the flag): %s", c.label, strings.Join(asked, " "))
			}
		}
	}
	for k := range known {
		prog, _, _ := strings.Cut(k, "\t")
		first, _, _ := strings.Cut(prog, " ")
		if !seen[k] && !slices.Contains(missing, first) && !strings.HasSuffix(prog, " *") {
			// Logged, not failed: an older version of the program (another
			// distribution, CI) may lack an option a newer one documents.
			t.Logf("testdata/options_known.txt lists %q, which the installed program does not document (an older version, or the spec now has it)", strings.Replace(k, "\t", " ", 1))
		}
	}
	if len(missing) > 0 {
		t.Logf("not installed here, not checked: %s", strings.Join(missing, " "))
		if os.Getenv("CI") == "true" {
			for _, m := range missing {
				if ciInstalls[m] {
					t.Errorf("%s is missing under CI: .ci/run installs it", m)
				}
			}
		}
	}
}

// ciInstalls are the programs of specs that .ci/run installs when missing.
var ciInstalls = map[string]bool{"rg": true, "tree": true, "gawk": true, "jq": true, "file": true, "less": true, "make": true}

// specCommand is one spec (or subcommand spec) to check: how to ask the
// program for its options, and which options the spec knows.
type specCommand struct {
	label   string     // "ls", "go build"
	argv    [][]string // the commands whose output documents the options
	sources []string
	sp      *spec
}

func (c specCommand) covers(o string) bool {
	sp := c.sp
	if o == "--help" || o == "--version" || o == "-" || o == "--" {
		return true
	}
	if _, ok := sp.flags[o]; ok {
		return true
	}
	if _, ok := sp.forbid[o]; ok {
		return true
	}
	if _, ok := sp.askFlags[o]; ok {
		return true
	}
	if _, ok := sp.tests[o]; ok {
		return true
	}
	if slices.Contains(sp.execActions, o) || slices.Contains(sp.editFlags, o) {
		return true
	}
	// head -NUM, tail -NUM: the number option.
	if sp.numberOption && regexp.MustCompile(`^-\d+$`).MatchString(o) {
		return true
	}
	return false
}

// specCommands lists what to check for spec sp of program name: the
// program itself, or each subcommand.
func specCommands(name string, sp *spec) []specCommand {
	man := []string{"man", name}
	if sp.subs == nil {
		return []specCommand{{label: name, argv: [][]string{{name, "--help"}, man}, sources: []string{name + " --help", "man " + name}, sp: sp}}
	}
	var out []specCommand
	var walk func(prefix []string, sp *spec)
	walk = func(prefix []string, sp *spec) {
		for _, sub := range sp.subNames {
			ssp := sp.subs[sub]
			path := append(slices.Clone(prefix), strings.Fields(sub)...)
			if ssp.subs != nil {
				walk(path, ssp)
			}
			label := name + " " + strings.Join(path, " ")
			var argv [][]string
			switch name {
			case "go":
				argv = [][]string{append([]string{"go", "help"}, path...)}
				if slices.Contains([]string{"build", "install", "run", "test", "vet", "list", "get", "clean"}, path[0]) {
					// "The build flags are shared by the build, clean,
					// get, install, list, run, and test commands".
					argv = append(argv, []string{"go", "help", "build"})
				}
				if path[0] == "test" {
					argv = append(argv, []string{"go", "help", "testflag"})
				}
			case "python", "python3":
				continue // -m pytest: pytest's own options, checked as pytest
			default:
				argv = [][]string{append(append([]string{name}, path...), "--help")}
			}
			if ssp.subs != nil && len(ssp.flags) == 0 {
				continue // a group (go mod): its subcommands are checked
			}
			c := specCommand{label: label, argv: argv, sp: ssp}
			for _, a := range argv {
				c.sources = append(c.sources, strings.Join(a, " "))
			}
			out = append(out, c)
		}
	}
	walk(nil, sp)
	if name == "python" || name == "python3" {
		out = append(out, specCommand{label: name, argv: [][]string{{name, "--help"}}, sources: []string{name + " --help"}, sp: sp})
	}
	return out
}

// documentedOptions runs each argv (in an empty directory, stdin empty,
// a minute at most) and returns the options its output documents, each with
// the first source naming it.
func documentedOptions(t *testing.T, argvs [][]string) map[string]string {
	out := map[string]string{}
	for _, argv := range argvs {
		if argv[0] == "man" {
			if _, err := exec.LookPath("man"); err != nil {
				continue
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "LC_ALL=C", "MANPAGER=cat", "PAGER=cat", "MANWIDTH=200", "GROFF_NO_SGR=1", "MAN_KEEP_FORMATTING=", "NO_COLOR=1", "GOFLAGS=", "GOTOOLCHAIN=local")
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		_ = cmd.Run() // some print their help with exit status 1 or 2
		cancel()
		text := backspaces.ReplaceAllString(b.String(), "")
		if argv[0] == "man" && strings.Contains(text, "No manual entry") {
			continue
		}
		src := strings.Join(argv, " ")
		opts := parseOptions(text)
		if argv[0] == "go" {
			// go help SUB writes its flags in prose: "The -json flag …".
			for _, m := range goProseFlag.FindAllStringSubmatch(text, -1) {
				opts = append(opts, m[1])
			}
		}
		for _, o := range opts {
			if _, ok := out[o]; !ok {
				out[o] = src
			}
		}
	}
	return out
}

// goProseFlag is a flag named in the prose of go help: "The -json flag",
// "[-o output]", "-modfile=file".
var goProseFlag = regexp.MustCompile(`(?:^|[\s\[(])(-[a-z][a-z0-9]*)(?:[=\s\]),.]|$)`)

// backspaces are the overstrikes of a man page rendered for a terminal.
var backspaces = regexp.MustCompile(".\x08")

var (
	// optionWord is an option as help texts write it: -x, --long, -long
	// (find, xxd, go), followed by a value, a comma, = or [.
	optionWord = regexp.MustCompile(`(?:^|[\s,\[|/])(--?[A-Za-z0-9#?@][A-Za-z0-9_.-]*)`)
	// npmOption is an option in npm's usage brackets: [--save-dev|--save-optional].
	npmBracket = regexp.MustCompile(`\[([^\]]*)\]`)
)

// parseOptions reads the options a help text or man page documents: on
// each line that starts (after at most 10 columns of indentation, a tab
// counting 8) with a dash, the options of its leading part, up to two
// spaces or a tab (GNU: "  -a, --all    do not ignore…", "      --block-size=SIZE";
// man: "       -n, --lines=[+]NUM"; Go: "\t-race"; cargo: "  -p, --package
// [<SPEC>]"). npm prints "[--save|--no-save]" groups under "Options:".
func parseOptions(text string) []string {
	var out []string
	add := func(o string) {
		o = strings.TrimRight(o, ".,:;")
		if i := strings.IndexAny(o, "=["); i > 0 {
			o = o[:i]
		}
		if len(o) < 2 || o == "--" || strings.HasPrefix(o, "---") || (len(o) > 2 && o[1] != '-' && strings.ContainsAny(o[1:2], "0123456789") && !regexp.MustCompile(`^-\d+$`).MatchString(o)) {
			return
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	inNpmOptions := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Options:") {
			inNpmOptions = true
			continue
		}
		if inNpmOptions && strings.HasPrefix(strings.TrimSpace(line), "[") {
			for _, m := range npmBracket.FindAllStringSubmatch(line, -1) {
				for _, alt := range strings.Split(m[1], "|") {
					alt = strings.TrimSpace(alt)
					if f := strings.Fields(alt); len(f) > 0 && strings.HasPrefix(f[0], "-") {
						add(f[0])
					}
				}
			}
			continue
		}
		inNpmOptions = false // GNU-style options under "Options:" (docker) are read below
		indent := 0
		i := 0
		for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
			if line[i] == '\t' {
				indent += 8
			} else {
				indent++
			}
		}
		if indent > 10 || i >= len(line) || line[i] != '-' {
			continue
		}
		head := line[i:]
		if j := strings.Index(head, "  "); j > 0 {
			head = head[:j]
		}
		if j := strings.IndexByte(head, '\t'); j > 0 {
			head = head[:j]
		}
		for _, m := range optionWord.FindAllStringSubmatch(" "+head, -1) {
			add(m[1])
		}
	}
	return out
}

// knownKey finds option o of label ("systemctl status") in known: the
// line for label itself, else one for it or a parent with "*"
// ("systemctl *" covers systemctl and each of its subcommands), for a
// program whose subcommands all print the same global options.
func knownKey(known map[string]string, label, o string) (string, bool) {
	cands := []string{label}
	words := strings.Fields(label)
	for i := len(words); i >= 1; i-- {
		cands = append(cands, strings.Join(words[:i], " ")+" *")
	}
	for _, k := range cands {
		if _, ok := known[k+"\t"+o]; ok {
			return k + "\t" + o, true
		}
	}
	return "", false
}

// readKnownOptions reads testdata/options_known.txt: "PROG[ SUB]<TAB>OPTION<TAB>REASON"
// lines ("PROG *" for every subcommand of PROG), # comments. Each line is an option the program documents that
// its spec deliberately leaves out (refused as an unknown flag).
func readKnownOptions(t *testing.T) map[string]string {
	data, err := os.ReadFile("testdata/options_known.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[2] == "" {
			t.Fatalf("testdata/options_known.txt:%d: want PROG<TAB>OPTION<TAB>REASON, got %q", n+1, line)
		}
		k := f[0] + "\t" + f[1]
		if _, dup := out[k]; dup {
			t.Fatalf("testdata/options_known.txt:%d: %s %s twice", n+1, f[0], f[1])
		}
		out[k] = f[2]
	}
	return out
}

// TestParseOptions: the help parser reads GNU, man, Go, cargo and npm
// layouts and ignores descriptions.
func TestParseOptions(t *testing.T) {
	text := "Usage: ls [OPTION]... [FILE]...\n" +
		"  -a, --all                  do not ignore entries starting with .\n" +
		"      --block-size=SIZE      with -l, scale sizes by SIZE when printing them;\n" +
		"                               e.g., '--block-size=M'; see SIZE format below\n" +
		"  -w, --width=COLS           set output width to COLS.  0 means no limit\n" +
		"       -n, --lines=[+]NUM\n" +
		"              output the last NUM lines, instead of the last 10; or use -n +NUM\n" +
		"\t-race\n\t\tenable data race detection.\n" +
		"  -p, --package [<SPEC>]  Package to build\n" +
		"Options:\n[-S|--save|--no-save|--save-prod]\n[-w|--workspace <workspace-name>]\n\n" +
		"  -1                         list one file per line\n"
	got := parseOptions(text)
	want := []string{"-a", "--all", "--block-size", "-w", "--width", "-n", "--lines", "-race", "-p", "--package", "-S", "--save", "--no-save", "--save-prod", "--workspace", "-1"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("parseOptions = %q\nwant %q", got, want)
	}
}
