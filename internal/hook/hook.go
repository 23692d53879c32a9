package hook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clada/clada/internal/decisionlog"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// Env is what an answer depends on besides the payload. The zero value
// reads no environment variables and rewrites nothing.
type Env struct {
	// Self is the clada the rewrite runs (`Self exec --root …`): the
	// path of the running clada, as the agent started it. "" means no
	// rewrite: an allowed command is allowed as written.
	Self string
	// Getenv reads the agent's environment (CLAUDE_PROJECT_DIR,
	// GEMINI_PROJECT_DIR); nil reads nothing.
	Getenv func(string) string
	// Agent finds the agent process that runs the hook
	// ([FindAgentProcess]); nil, or ok false, when it cannot be seen. It
	// is called only when the answer depends on it (an asked command).
	Agent func() (AgentProcess, bool)
}

func (e Env) agent() (AgentProcess, bool) {
	if e.Agent == nil {
		return AgentProcess{}, false
	}
	return e.Agent()
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Request is one command line an agent's shell is about to run.
type Request struct {
	Command string // the command line as the model wrote it
	Dir     string // absolute directory the agent's shell runs it in
	// Root is the project directory the agent names (CLAUDE_PROJECT_DIR,
	// GEMINI_PROJECT_DIR, Cursor's workspace root): the directory the
	// agent was started in, which may be a subdirectory of the project.
	// The root is found from it as clada finds it from where a person
	// stands (project.FindRoot: the outermost .clada/ up to the git top
	// level, else the top level), so it is never narrower than the
	// repository, unless that repository holds the home directory
	// (dotfiles): then it is the agent's directory. "" finds it from
	// Dir as clada does.
	Root string
	// Agent is the agent whose shell runs the command ("claude-code",
	// "gemini", "cursor"): reads of its own scratch output are allowed
	// ([ScratchDirs]).
	Agent string
}

// Answer is clada's decision on a [Request].
type Answer struct {
	Decision gateway.Decision
	// Result is the decision as `clada check` reports it; nil when the
	// project could not be opened or Dir is outside it (then Decision is
	// Deny and Reason says why).
	Result *gateway.Result
	// Reason is one paragraph: for the model on deny (rule, word, reason,
	// what to do instead), for the person on ask (why they are asked).
	Reason string
	// Root and Dir are the project root and the directory, absolute, as
	// `clada exec --root --dir` takes them.
	Root, Dir string
	// Scratch is the agent whose scratch directories the decision needed
	// (`clada exec --agent` grants them again); "" when none.
	Scratch string
	// Timeout is the agent's own time limit for the command, which the
	// rewrite passes to clada exec (--timeout); 0 leaves clada's.
	Timeout time.Duration
}

// maxPayload caps what a hook reads from the agent: a shell command's
// payload is small, and a hook never holds more than this.
const maxPayload = 4 << 20

// errMalformed wraps every error about a payload the hook cannot use.
var errMalformed = errors.New("malformed hook payload")

// readPayload reads the agent's JSON, at most maxPayload bytes.
func readPayload(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading stdin: %v", errMalformed, err)
	}
	if len(data) > maxPayload {
		return nil, fmt.Errorf("%w: more than %d bytes on stdin", errMalformed, maxPayload)
	}
	return data, nil
}

// Decide opens the project and decides req.Command as `clada check` does,
// run in req.Dir. A project that cannot be opened (an unreadable
// .clada/commands.toml) or a Dir outside the root is a deny: a hook never
// allows what it could not check.
func Decide(req Request) Answer {
	a := Answer{Decision: gateway.Deny, Dir: req.Dir}
	if !filepath.IsAbs(req.Dir) {
		a.Reason = fmt.Sprintf("clada denied this command: the hook payload names no absolute working directory (%q)", req.Dir)
		return a
	}
	root := ""
	if req.Root != "" {
		if !filepath.IsAbs(req.Root) {
			a.Reason = fmt.Sprintf("clada denied this command: the agent names no absolute project directory (%q)", req.Root)
			return a
		}
		dir := filepath.Clean(req.Root)
		root, _ = project.FindRoot(dir)
		if root != dir && holdsHome(root) {
			// A repository at the home directory (dotfiles) would make
			// the whole home the project: the agent's directory stays
			// the root, as Claude Code keeps its rules there too.
			root = dir
		}
	}
	p, err := project.Open(project.Options{Root: root, WorkDir: req.Dir})
	if err != nil {
		a.Reason = "clada denied this command: it could not open the project: " + err.Error()
		var pe *project.Error
		if errors.As(err, &pe) && pe.Hint != "" {
			a.Reason += " (" + pe.Hint + ")"
		}
		return a
	}
	a.Root = p.Root
	if p.Base == "" && !sameDir(p.Root, req.Dir) {
		a.Reason = fmt.Sprintf("clada denied this command (rule %s) `%s`: the shell is in %s, outside the project root %s. Do instead: run commands in the project; ask the person to start the agent's shell there again",
			rules.PathOutsideRoot, req.Dir, req.Dir, p.Root)
		return a
	}
	g, err := p.DecideGateway() // clada exec decides again and runs
	if err != nil {
		a.Reason = "clada denied this command: it could not read its approvals: " + err.Error()
		return a
	}
	r := g.Check(req.Command, "")
	if r.Decision != gateway.Allow {
		// A read of the agent's own scratch output (its background
		// tasks' output files) is allowed; the rewrite then passes
		// --agent, so that clada exec grants the same.
		if dirs := ScratchDirs(req.Agent); len(dirs) > 0 {
			p.Dirs = append(p.Dirs, dirs...)
			if g2, err := p.DecideGateway(); err == nil {
				if r2 := g2.Check(req.Command, ""); r2.Decision == gateway.Allow {
					r, a.Scratch = r2, req.Agent
				}
			}
		}
	}
	a.Result, a.Decision = r, r.Decision
	// The decision log gets the hook's answer; a failure to write it
	// changes no answer and is not the agent's to show.
	defer func() {
		e := p.LogEntry(decisionlog.EntryHook, req.Agent, r)
		e.Decision = string(a.Decision)
		if a.Decision != r.Decision {
			e.Rule, e.Reason = string(rules.SelfExec), a.Reason
		}
		_ = p.Log(e)
	}()
	if r.Decision == gateway.Ask && runsExec(r.Argv) {
		// The person would approve a clada exec, which then refuses
		// what needs approval: refuse now and say how to be asked.
		a.Decision = gateway.Deny
		a.Reason = fmt.Sprintf("clada denied this command (rule %s): it runs clada exec of a command that needs approval (%s), and clada exec never runs what needs approval. Do instead: write the command without clada exec, so that the person is asked",
			rules.SelfExec, why(r))
		return a
	}
	a.Reason = reason(r)
	return a
}

// durationWord writes d for clada exec --timeout: whole seconds as
// "120s", else milliseconds.
func durationWord(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// holdsHome reports whether dir is the home directory or above it.
func holdsHome(dir string) bool {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	rel, err := filepath.Rel(dir, home)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// runsExec reports whether argv runs `clada exec`.
func runsExec(argv []string) bool {
	return len(argv) > 1 && specs.ProgName(argv[0]) == "clada" && argv[1] == "exec"
}

func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// why is the reason an asked command is asked.
func why(r *gateway.Result) string {
	if r.Why != "" {
		return r.Why
	}
	return r.Reason
}

// reason is the one paragraph the agent shows for r: for the model on
// deny, for the person on ask.
func reason(r *gateway.Result) string {
	switch r.Decision {
	case gateway.Allow:
		return fmt.Sprintf("clada allows this command (rule %s)", r.Rule)
	case gateway.Ask:
		return fmt.Sprintf("clada asks: %s (rule %s)", why(r), r.Rule)
	}
	s := fmt.Sprintf("clada denied this command (rule %s)", r.Rule)
	if r.Word != "" {
		s += fmt.Sprintf(" `%s`", r.Word)
	}
	s += ": " + toolWords.Replace(strings.TrimSuffix(r.Reason, "."))
	if advice := hookAdvice(r); advice != "" {
		s += ". Do instead: " + advice
	}
	return s
}

// hookAdvice is what the model should do instead, said for a model that
// runs commands through an agent's shell tool. The parser's advice for
// shell syntax, cd, redirections and CSL errors speaks of RUN blocks,
// their dir attribute and WRITE blocks, which an agent's shell tool does
// not have.
func hookAdvice(r *gateway.Result) string {
	switch r.Rule {
	case "shell-syntax", "builtin", rules.CSLSyntax:
		return "write commands without shell logic: pipes, `&&`, `||`, `;`, `cd DIR && …` and redirections to files in the project are accepted; " +
			"loops, conditionals, subshells, groups and `&` are not, so run the steps one at a time"
	case "redirect":
		return "redirect only stdin, stdout and stderr, to files inside the project, or drop the redirection: the agent shows you stdout and stderr"
	case "substitution":
		return "run the inner command on its own first, then write its result literally in the next command; for a process substitution, write its output to a file inside the project and pass the file name"
	case "expansion":
		if strings.Contains(r.Advice, "$HOME") && !strings.Contains(r.Advice, "dir attribute") {
			return r.Advice
		}
		return "write the value out literally (for $HOME write the path; for a directory, `cd DIR && …`)"
	case rules.ArgTooLong:
		return "pass large content in a file inside the project, written with your file-writing tool"
	}
	return toolWords.Replace(r.Advice)
}

// toolWords rewrites, in advice written for CSL replies, what names CSL
// blocks into what a model with a shell tool has, for any advice the
// cases above do not cover (TestHookReasonsSpeakOfNoBlocks).
var toolWords = strings.NewReplacer(
	"in its own RUN block", "as a command of its own",
	"in their own RUN blocks", "as commands of their own",
	"per RUN block", "per command",
	"a RUN block", "a command",
	"RUN blocks", "commands",
	"RUN block", "command",
	"with a WRITE block", "with your file-writing tool",
	"a WRITE block", "your file-writing tool",
	"WRITE blocks", "your file-writing tool",
	"a TASKS group", "one command after another",
	"the dir attribute", "`cd DIR && …`",
	"a dir attribute", "`cd DIR && …`",
)

// Rewrite returns the command line that runs the allowed command through
// clada exec, or "" when the answer is not allow or self is "":
// `SELF exec --root ROOT --dir DIR -- ARGV…` when every word reads the
// same in every shell an agent may use ([portableWord]), else the command
// line as one encoded word, `--line64 L…` (and a root or directory that
// is not portable as `--root64`/`--dir64`). Compositions are always
// encoded. The agent's shell hands clada exec exactly the words that were
// decided, and exec decides them again in the same root and directory.
// self is the person's own path to clada (from the installation, never
// from the model); it is quoted for POSIX shells when it is not portable.
func (a Answer) Rewrite(self string) string {
	if a.Decision != gateway.Allow || self == "" || a.Result == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(rewritePrefix(self))
	opt := func(name, val string) {
		if portableWord(val) {
			b.WriteString(" --" + name + " " + ShellQuote([]string{val}))
		} else {
			b.WriteString(" --" + name + "64 " + gateway.EncodeLine(val))
		}
	}
	opt("root", a.Root)
	opt("dir", a.Dir)
	if a.Scratch != "" {
		b.WriteString(" --agent " + a.Scratch)
	}
	if a.Timeout > 0 {
		b.WriteString(" --timeout " + durationWord(a.Timeout))
	}
	if a.Result.Composite == nil && !slices.ContainsFunc(a.Result.Argv, func(w string) bool { return !portableWord(w) }) {
		b.WriteString(" --")
		b.WriteString(" " + ShellQuote(a.Result.Argv))
		return b.String()
	}
	// A composition, or a word some shell would read differently, reaches
	// clada exec as one word that every shell (bash, zsh, fish, dash,
	// PowerShell, cmd) passes unchanged: base64url, behind a letter.
	line := a.Result.Command
	if a.Result.Composite == nil {
		line = parser.Quote(a.Result.Argv)
	}
	b.WriteString(" --line64 " + gateway.EncodeLine(line))
	return b.String()
}

// asWritten reports whether running the command as the model wrote it,
// in the agent's shell, runs what clada decided: the same arguments and
// no extra environment, from a text that every shell an agent may use
// reads as those same words ([plainText]). It is false for git, which
// clada runs with hardening arguments and variables, so an agent that
// cannot rewrite the command must ask instead of allowing it.
func (a Answer) asWritten() bool {
	r := a.Result
	if r == nil || r.Composite != nil || len(r.Argv) == 0 || len(r.Exec) != len(r.Argv) || len(r.Env) > 0 {
		return false
	}
	if words, ok := plainText(r.Command); !ok || !slices.Equal(words, r.Argv) {
		return false
	}
	return runsExec(r.Argv) || slices.Equal(r.Exec[1:], r.Argv[1:])
}

// plainWord reports whether s means the same, unquoted, to every shell an
// agent may use (bash, zsh, dash, fish, PowerShell): letters, digits and
// _ . / : + -, not empty. Left out: what zsh expands (a leading = is the
// path of a program, ^ and # with extendedglob), what fish expands (~, {},
// % once), what PowerShell reads as syntax (, is an array, @ splats, $
// and () and ; and `), history expansion (!) of interactive shells, and
// every glob and quote character.
func plainWord(s string) bool { return parser.BareWord(s, "_./:+-") }

// quotableWord reports whether s, inside single quotes, means the same
// to every shell an agent may use: no single quote (and none of the
// typographic ones PowerShell also reads as quotes), no backslash
// (fish reads \' and \\ inside single quotes as escapes), no control
// character (tab included: it is kept, but agents' tools rewrite it).
// Inside single quotes bash, zsh, dash and PowerShell take every other
// character as it is, and no shell expands history there.
func quotableWord(s string) bool {
	if s == "" {
		return false // Windows PowerShell drops an empty argument
	}
	for _, r := range s {
		switch {
		case r == '\'', r == '\\', r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return false
		case r == '\u2018', r == '\u2019', r == '\u201a', r == '\u201b':
			return false
		}
	}
	return true
}

// portableWord reports whether s can be written so that every shell an
// agent may use reads it back as s: plain, or quotable.
func portableWord(s string) bool { return plainWord(s) || quotableWord(s) }

// plainText splits text, a command as the model wrote it, into its words
// when every shell an agent may use reads it the same: words separated by
// spaces, each plain or wholly in single quotes with quotable contents,
// the first (the program) plain, as PowerShell runs only an unquoted
// program name. ok is false for anything else.
func plainText(text string) (words []string, ok bool) {
	for i := 0; i < len(text); {
		switch j := i; {
		case text[i] == ' ':
			i++
		case text[i] == '\'' && len(words) > 0:
			end := strings.IndexByte(text[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			w := text[i+1 : i+1+end]
			if i += end + 2; !quotableWord(w) || (i < len(text) && text[i] != ' ') {
				return nil, false
			}
			words = append(words, w)
		default:
			for j < len(text) && text[j] != ' ' {
				j++
			}
			if !plainWord(text[i:j]) {
				return nil, false
			}
			words, i = append(words, text[i:j]), j
		}
	}
	return words, len(words) > 0
}

// ShellQuote joins words into a command line for the agent's shell: a
// [plainWord] as it is, any other in single quotes ([parser.SingleQuote]).
// A POSIX shell (bash, zsh, dash, sh) splits it back
// into exactly these words; so does every shell an agent may use (fish
// and PowerShell too) when each word is a [portableWord], which is how
// [Answer.Rewrite] uses it. It is not [parser.Quote], which writes bash
// for clada's own parser and for people, and leaves words bare (%self,
// a=b, x,y) that zsh, fish or PowerShell read otherwise; nor
// syntax.Quote, whose $'…' fish and dash do not read and whose bare
// %self fish expands.
func ShellQuote(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if plainWord(w) {
			b.WriteString(w)
			continue
		}
		b.WriteString(parser.SingleQuote(w))
	}
	return b.String()
}
