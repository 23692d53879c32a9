package parser

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/clada/clada/internal/rules"
)

// A composition is a body in the static subset of shell that clada can
// decide part by part before anything runs and then execute itself,
// without a shell (docs/rules.md, "Compositions"): pipelines (`|`, `|&`),
// lists (`&&`, `||`, `;`, newlines), `cd DIR` statements, redirections
// with literal targets, literal here-documents and here-strings, the one
// substitution `"$(cat <<'EOF' … EOF)"`, NAME=value prefixes, brace lists
// and globs. Everything else keeps the refusal a RUN body gets.

// ListOp says how a pipeline of a [Script] follows the one before it.
type ListOp int

// The list operators.
const (
	Then ListOp = iota // first, after `;` or a newline: runs whatever came before
	And                // `&&`: runs when the status so far is 0
	Or                 // `||`: runs when the status so far is not 0
)

func (o ListOp) String() string {
	switch o {
	case And:
		return "&&"
	case Or:
		return "||"
	}
	return ";"
}

// Script is a composition, as [Parser.Script] reads it: its pipelines in
// the order they appear. bash's `&&` and `||` bind left to right with
// equal precedence, so running the pipelines in order, each when its
// operator says so, is bash's semantics.
type Script struct {
	Pipelines []*Pipeline
}

// Pipeline is one pipeline of a [Script], or a `cd DIR` statement.
type Pipeline struct {
	Op ListOp
	// Cd is the directory of a `cd DIR` statement, relative to the
	// directory the statement runs in (or absolute, to be confined);
	// Cmds is then nil.
	Cd   string
	Cmds []*Cmd
	Text string // as written
	Line int    // 1-based line within the body
}

// Cmd is one command of a pipeline.
type Cmd struct {
	// Env are the NAME=value prefixes, as written after quote removal.
	Env   []string
	Words []Word
	// Redirs are the redirections, in the order bash applies them.
	Redirs []Redir
	// PipeStderr is set when `|&` follows: stderr joins stdout in the
	// pipe, after the command's own redirections.
	PipeStderr bool
	Text       string // as written
	Line       int
}

// Word is one word of a command, after quote removal and brace
// expansion.
type Word struct {
	Value string
	// Glob is, for a word with unquoted glob characters (`*`, `?`,
	// `[…]`), the pattern to expand, with its quoted characters escaped
	// by a backslash (path.Match syntax); "" for a literal word.
	Glob string
}

// RedirKind is what a [Redir] does.
type RedirKind int

// The redirections of a composition.
const (
	RedirRead   RedirKind = iota // N<FILE
	RedirWrite                   // N>FILE, N>|FILE
	RedirAppend                  // N>>FILE
	RedirDup                     // N>&M
	RedirData                    // here-document, here-string: Data on stdin
)

// Redir is one redirection of a command.
type Redir struct {
	Kind RedirKind
	Fd   int    // 0, 1 or 2
	Both bool   // &> and &>>: stdout and stderr
	Path string // Read, Write, Append: the file as written
	To   int    // Dup: the descriptor copied
	Data string // Data: the text
	Text string // as written
}

// Script turns a body into a composition, refusing what is outside the
// subset with the rule and advice a RUN body gets. A body that breaks
// docs/csl.md §5 but for its number of commands is refused with
// [rules.CSLSyntax]. The error is always a *[rules.Denied].
func (p *Parser) Script(body string) (*Script, error) {
	f, blockErr := p.parseBody(body)
	if blockErr != "" {
		return nil, &rules.Denied{Rule: rules.CSLSyntax, Reason: blockErr,
			Advice: "fix the command's syntax"}
	}
	c := composer{src: body, windows: p.windows}
	for _, st := range f.Stmts {
		if d := c.list(st, Then); d != nil {
			return nil, d
		}
	}
	return &Script{Pipelines: c.pipes}, nil
}

// Simple returns the argv of a script that is one plain command with no
// redirection, prefix, brace list or glob; ok is false otherwise.
func (s *Script) Simple() (argv []string, ok bool) {
	if len(s.Pipelines) != 1 || len(s.Pipelines[0].Cmds) != 1 {
		return nil, false
	}
	c := s.Pipelines[0].Cmds[0]
	if len(c.Env) > 0 || len(c.Redirs) > 0 {
		return nil, false
	}
	for _, w := range c.Words {
		if w.Glob != "" {
			return nil, false
		}
		argv = append(argv, w.Value)
	}
	return argv, true
}

type composer struct {
	src     string
	windows bool
	pipes   []*Pipeline
}

// list flattens a statement of `&&`/`||` lists into pipelines, in order.
func (c *composer) list(st *syntax.Stmt, op ListOp) *rules.Denied {
	if d := c.stmtFlags(st); d != nil {
		return d
	}
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) {
		if len(st.Redirs) > 0 {
			return c.deny(rules.Redirect, st.Redirs[0], "a redirection of a whole list needs a shell",
				"put the redirection on each command it is meant for")
		}
		if d := c.list(b.X, op); d != nil {
			return d
		}
		next := And
		if b.Op == syntax.OrStmt {
			next = Or
		}
		return c.list(b.Y, next)
	}
	p := &Pipeline{Op: op, Text: nodeText(c.src, st), Line: int(st.Pos().Line())}
	if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 && call.Args[0].Lit() == "cd" {
		dir, d := c.cd(st, call)
		if d != nil {
			return d
		}
		p.Cd = dir
		c.pipes = append(c.pipes, p)
		return nil
	}
	if d := c.pipeline(st, p, false); d != nil {
		return d
	}
	c.pipes = append(c.pipes, p)
	return nil
}

// stmtFlags refuses `!`, `&` and coproc.
func (c *composer) stmtFlags(st *syntax.Stmt) *rules.Denied {
	switch {
	case st.Negated:
		return &rules.Denied{Rule: rules.ShellSyntax, Word: "!", Line: int(st.Pos().Line()), Col: int(st.Pos().Col()),
			Reason: "`!` negates the exit status, which needs a shell",
			Advice: "run the command without `!`; clada reports the exit code"}
	case st.Background:
		return &rules.Denied{Rule: rules.ShellSyntax, Word: "&", Line: int(st.Semicolon.Line()), Col: int(st.Semicolon.Col()),
			Reason: "`&` runs the command in the background, which needs a shell",
			Advice: "remove the `&`; clada runs each command to completion with a timeout"}
	case st.Coprocess:
		return c.deny(rules.ShellSyntax, st, "coproc needs a shell", "run the command on its own")
	}
	return nil
}

// pipeline appends the commands of a pipe statement to p.
func (c *composer) pipeline(st *syntax.Stmt, p *Pipeline, inPipe bool) *rules.Denied {
	if d := c.stmtFlags(st); d != nil {
		return d
	}
	switch x := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op != syntax.Pipe && x.Op != syntax.PipeAll {
			return compoundDenial(c.src, x) // && inside a pipe needs a group
		}
		if len(st.Redirs) > 0 {
			return c.deny(rules.Redirect, st.Redirs[0], "a redirection of a whole pipeline needs a shell",
				"put the redirection on the command it is meant for")
		}
		if d := c.pipeline(x.X, p, true); d != nil {
			return d
		}
		p.Cmds[len(p.Cmds)-1].PipeStderr = x.Op == syntax.PipeAll
		return c.pipeline(x.Y, p, true)
	case *syntax.CallExpr:
		if len(x.Args) > 0 && x.Args[0].Lit() == "cd" && inPipe {
			return c.deny(rules.Cd, x.Args[0], "`cd` inside a pipeline changes nothing (a shell runs it in a subshell)",
				"write `cd DIR && …` as a statement of its own, before the commands that run in DIR")
		}
		cmd, d := c.command(st, x)
		if d != nil {
			return d
		}
		p.Cmds = append(p.Cmds, cmd)
		return nil
	case nil:
		return c.deny(rules.ShellSyntax, st, "no command word", "write a command")
	}
	d := compoundDenial(c.src, st.Cmd)
	d.Advice = composeAdvice(d)
	return d
}

// composeAdvice is the advice for a construct that stays refused in a
// composition: what can be written instead, there.
func composeAdvice(d *rules.Denied) string {
	switch d.Word {
	case "(", "{":
		return "write the commands without the grouping: `a && b`, `a | b` and `cd DIR && …` need none"
	case "if", "case", "[[", "((", "while", "until", "for", "select":
		return "run the commands one at a time and decide from their output and exit codes; `a && b` and `a || b` are accepted"
	}
	return d.Advice
}

// cd reads a `cd DIR` statement.
func (c *composer) cd(st *syntax.Stmt, call *syntax.CallExpr) (string, *rules.Denied) {
	name := call.Args[0]
	switch {
	case len(st.Redirs) > 0:
		return "", c.deny(rules.Cd, st.Redirs[0], "a redirection on `cd` needs a shell", "write `cd DIR` alone")
	case len(call.Assigns) > 0:
		return "", c.deny(rules.Cd, call.Assigns[0], "an assignment before `cd` needs a shell", "write `cd DIR` alone")
	case len(call.Args) == 1:
		return "", c.deny(rules.Cd, name, "a bare `cd` goes to the home directory, outside the project",
			"write `cd DIR` with a directory inside the project")
	case len(call.Args) > 2:
		return "", c.deny(rules.Cd, call.Args[2], "`cd` takes one directory", "write `cd DIR` with one directory")
	}
	dir, d := wordValue(c.src, call.Args[1], false)
	if d != nil {
		if d.Rule == rules.Expansion && strings.HasPrefix(nodeText(c.src, call.Args[1]), "~") {
			d.Rule = rules.Cd
			d.Advice = "write `cd DIR` with a directory inside the project; the home directory is outside it"
		}
		return "", d
	}
	switch {
	case dir == "-":
		return "", c.deny(rules.Cd, call.Args[1], "`cd -` goes back to a directory clada does not track",
			"write `cd DIR` with the directory itself")
	case strings.HasPrefix(dir, "-"):
		return "", c.deny(rules.Cd, call.Args[1], fmt.Sprintf("`cd %s`: cd takes no options here", dir),
			"write `cd DIR` with the directory alone")
	case dir == "":
		return "", c.deny(rules.Cd, call.Args[1], "`cd ''` names no directory", "write `cd DIR`")
	}
	return dir, nil
}

// command reads one simple command of a composition.
func (c *composer) command(st *syntax.Stmt, call *syntax.CallExpr) (*Cmd, *rules.Denied) {
	cmd := &Cmd{Text: nodeText(c.src, st), Line: int(st.Pos().Line())}
	for _, a := range call.Assigns {
		env, d := c.assign(a)
		if d != nil {
			return nil, d
		}
		cmd.Env = append(cmd.Env, env)
	}
	if len(call.Args) == 0 {
		if len(call.Assigns) > 0 {
			return nil, c.deny(rules.Assignment, call.Assigns[0], fmt.Sprintf("`%s` sets a shell variable, which means nothing without a shell", nodeText(c.src, call.Assigns[0])),
				"put the assignment before the command that needs it: `NAME=value command`")
		}
		return nil, c.deny(rules.ShellSyntax, st, "no command word", "write a command")
	}
	var from []*syntax.Word // the source word of each word, for the checks below
	for i, w := range call.Args {
		words, d := c.words(w, i == 0)
		if d != nil {
			return nil, d
		}
		for range words {
			from = append(from, w)
		}
		cmd.Words = append(cmd.Words, words...)
	}
	argv := make([]string, len(cmd.Words))
	for i, w := range cmd.Words {
		argv[i] = w.Value
	}
	if cmd.Words[0].Glob != "" || len(from) > 1 && from[1] == from[0] {
		return nil, c.deny(rules.Glob, call.Args[0], "the command name is a glob or a brace list, so which program runs would depend on the files",
			"write the program's name")
	}
	if d := checkName(argv[0], call.Args[0], c.src); d != nil {
		if d.Rule == rules.Builtin && argv[0] == "cd" {
			d.Advice = "write `cd DIR` as a statement of its own"
		}
		return nil, d
	}
	if d := lookalike(c.src, from, argv); d != nil {
		return nil, d
	}
	if c.windows {
		if w := consumedBackslash(c.src, call.Args); w != nil {
			return nil, backslashDenial(c.src, w)
		}
	}
	for _, r := range st.Redirs {
		rd, d := c.redirect(r)
		if d != nil {
			return nil, d
		}
		cmd.Redirs = append(cmd.Redirs, rd)
	}
	return cmd, nil
}

// assign reads a NAME=value prefix.
func (c *composer) assign(a *syntax.Assign) (string, *rules.Denied) {
	switch {
	case a.Append || a.Naked || a.Index != nil || a.Array != nil:
		return "", c.deny(rules.Assignment, a, fmt.Sprintf("`%s` is not a plain NAME=value setting", nodeText(c.src, a)),
			"write NAME=value with a literal value")
	case a.Value == nil:
		return a.Name.Value + "=", nil
	}
	val, d := wordValue(c.src, a.Value, false)
	if d != nil {
		return "", d
	}
	return a.Name.Value + "=" + val, nil
}

// redirect reads one redirection.
func (c *composer) redirect(r *syntax.Redirect) (Redir, *rules.Denied) {
	rd := Redir{Text: nodeText(c.src, r)}
	fd := -1
	if r.N != nil {
		n, err := strconv.Atoi(r.N.Value)
		if err != nil || n > 2 {
			return rd, c.deny(rules.Redirect, r, fmt.Sprintf("`%s` redirects descriptor %s; clada handles only 0, 1 and 2", rd.Text, r.N.Value),
				"redirect stdin (0), stdout (1) or stderr (2) only")
		}
		fd = n
	}
	target := func() (string, *rules.Denied) {
		v, d := wordValue(c.src, r.Word, false)
		if d != nil {
			return "", d
		}
		if v == "" {
			return "", c.deny(rules.Redirect, r, fmt.Sprintf("`%s` names no file", rd.Text), "name the file")
		}
		return v, nil
	}
	switch r.Op {
	case syntax.RdrIn:
		rd.Kind, rd.Fd = RedirRead, orFd(fd, 0)
	case syntax.RdrOut, syntax.RdrClob:
		rd.Kind, rd.Fd = RedirWrite, orFd(fd, 1)
	case syntax.AppOut:
		rd.Kind, rd.Fd = RedirAppend, orFd(fd, 1)
	case syntax.RdrAll:
		rd.Kind, rd.Fd, rd.Both = RedirWrite, 1, true
	case syntax.AppAll:
		rd.Kind, rd.Fd, rd.Both = RedirAppend, 1, true
	case syntax.DplOut:
		to, _ := wordValue(c.src, r.Word, false)
		n, err := strconv.Atoi(to)
		if err != nil || n < 1 || n > 2 || len(to) != 1 {
			if fd < 0 && err != nil && to != "-" {
				// `>&FILE` is bash's &>FILE.
				if _, d := target(); d == nil {
					rd.Kind, rd.Fd, rd.Both = RedirWrite, 1, true
					break
				}
			}
			return rd, c.deny(rules.Redirect, r, fmt.Sprintf("`%s` is not a copy of stdout or stderr", rd.Text),
				"use `2>&1` or `>&2`, or name a file")
		}
		rd.Kind, rd.Fd, rd.To = RedirDup, orFd(fd, 1), n
		if rd.Fd == 0 {
			return rd, c.deny(rules.Redirect, r, fmt.Sprintf("`%s` makes stdin an output", rd.Text), "use `2>&1` or `>&2`")
		}
		return rd, nil
	case syntax.Hdoc, syntax.DashHdoc:
		data, d := c.heredoc(r)
		if d != nil {
			return rd, d
		}
		rd.Kind, rd.Fd, rd.Data = RedirData, orFd(fd, 0), data
		rd.Text = strings.SplitN(rd.Text, "\n", 2)[0]
		if rd.Fd != 0 {
			return rd, c.deny(rules.Redirect, r, "a here-document for a descriptor other than stdin", "feed it to stdin")
		}
		return rd, nil
	case syntax.WordHdoc:
		v, d := wordValue(c.src, r.Word, false)
		if d != nil {
			return rd, d
		}
		rd.Kind, rd.Fd, rd.Data = RedirData, orFd(fd, 0), v+"\n"
		if rd.Fd != 0 {
			return rd, c.deny(rules.Redirect, r, "a here-string for a descriptor other than stdin", "feed it to stdin")
		}
		return rd, nil
	default:
		return rd, c.deny(rules.Redirect, r, fmt.Sprintf("`%s` is a redirection clada does not run", r.Op),
			"use >, >>, <, 2>&1, &>, here-documents or here-strings")
	}
	if rd.Path == "" {
		v, d := target()
		if d != nil {
			return rd, d
		}
		rd.Path = v
	}
	if rd.Kind == RedirRead && rd.Fd != 0 {
		return rd, c.deny(rules.Redirect, r, fmt.Sprintf("`%s` opens a file for reading on an output", rd.Text), "use `< FILE` for stdin")
	}
	return rd, nil
}

func orFd(fd, def int) int {
	if fd < 0 {
		return def
	}
	return fd
}

// heredoc is the text of a here-document whose delimiter is quoted, or
// whose text holds no `$`, backquote or backslash: bash gives it as it
// stands (less leading tabs for <<-).
func (c *composer) heredoc(r *syntax.Redirect) (string, *rules.Denied) {
	var tb strings.Builder
	expands := false
	if r.Hdoc != nil {
		for _, part := range r.Hdoc.Parts {
			if x, ok := part.(*syntax.Lit); ok {
				tb.WriteString(x.Value)
			} else {
				expands = true
			}
		}
	}
	text := tb.String()
	quoted := false
	for _, part := range r.Word.Parts {
		switch x := part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			quoted = quoted || strings.ContainsRune(x.Value, '\\')
		}
	}
	if expands || !quoted && strings.ContainsAny(text, "$`\\") {
		return "", c.deny(rules.Expansion, r, "the here-document's delimiter is not quoted and its text holds `$`, a backquote or a backslash, which bash would expand",
			"quote the delimiter (<<'EOF') so that the text is literal")
	}
	if r.Op == syntax.DashHdoc {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		text = strings.Join(lines, "")
	}
	if bad, off := badRune(text); off >= 0 {
		return "", c.deny(rules.Character, r, fmt.Sprintf("the here-document contains %U, an invisible or control character", bad),
			"write the text with visible characters only")
	}
	return text, nil
}

// words reads one word of a command: its values after brace expansion,
// each with its glob pattern, or the text of the one substitution clada
// knows the value of.
func (c *composer) words(w *syntax.Word, first bool) ([]Word, *rules.Denied) {
	if v, ok, d := c.catHeredoc(w); ok || d != nil {
		if d != nil {
			return nil, d
		}
		val, d := checkValue(c.src, w, v)
		return []Word{{Value: val}}, d
	}
	val, unq, d := literalWord(c.src, w, true, true)
	if d != nil {
		return nil, d
	}
	if what := braceCheck(val, unq); what == "a sequence" {
		return nil, c.deny(rules.Expansion, w, fmt.Sprintf("`%s` is a brace sequence, which clada does not expand", nodeText(c.src, w)),
			"write each word out, or use a brace list such as {a,b,c}")
	}
	var out []Word
	for _, e := range expandBraces(val, unq) {
		if _, d := checkValue(c.src, w, e.val); d != nil {
			return nil, d
		}
		out = append(out, Word{Value: e.val, Glob: globPattern(e.val, e.unq)})
	}
	return out, nil
}

// catHeredoc recognises `"$(cat <<'EOF' … EOF)"` (a double-quoted word
// made of that substitution, with literal text around it at most): its
// value is the here-document's text less its final newlines, as bash
// gives it. ok is false for every other word.
func (c *composer) catHeredoc(w *syntax.Word) (string, bool, *rules.Denied) {
	if len(w.Parts) != 1 {
		return "", false, nil
	}
	dq, isDQ := w.Parts[0].(*syntax.DblQuoted)
	if !isDQ || dq.Dollar {
		return "", false, nil
	}
	var b strings.Builder
	found := false
	for _, part := range dq.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(dqUnescape(x.Value))
		case *syntax.CmdSubst:
			if len(x.Stmts) != 1 || found {
				return "", false, nil
			}
			st := x.Stmts[0]
			call, ok := st.Cmd.(*syntax.CallExpr)
			if !ok || len(call.Args) != 1 || call.Args[0].Lit() != "cat" || len(call.Assigns) > 0 ||
				len(st.Redirs) != 1 || st.Negated || st.Background ||
				(st.Redirs[0].Op != syntax.Hdoc && st.Redirs[0].Op != syntax.DashHdoc) || st.Redirs[0].N != nil {
				return "", false, nil
			}
			text, d := c.heredoc(st.Redirs[0])
			if d != nil {
				return "", false, d
			}
			b.WriteString(strings.TrimRight(text, "\n"))
			found = true
		default:
			return "", false, nil
		}
	}
	return b.String(), found, nil
}

// deny is a denial at node n (nil: no position).
func (c *composer) deny(rule rules.Rule, n syntax.Node, reason, advice string) *rules.Denied {
	e := &rules.Denied{Rule: rule, Reason: reason, Advice: advice}
	if n != nil {
		pos := n.Pos()
		e.Line, e.Col = int(pos.Line()), int(pos.Col())
		e.Word = nodeText(c.src, n)
	}
	return e
}

// expanded is one word of a brace expansion, with its unquoted mask.
type expanded struct {
	val string
	unq []bool
}

// expandBraces performs bash's brace expansion of comma lists on a word
// whose unquoted characters unq marks; a word without one is itself.
// Like bash, it expands the first list (and the lists inside its
// alternatives), then the rest of the word, left to right.
func expandBraces(val string, unq []bool) []expanded {
	open, closing, commas := findBraceList(val, unq)
	if open < 0 {
		return []expanded{{val, unq}}
	}
	var out []expanded
	pre, preU := val[:open], unq[:open]
	post, postU := val[closing+1:], unq[closing+1:]
	start := open + 1
	for _, end := range append(commas, closing) {
		alt := pre + val[start:end] + post
		altU := append(append(append([]bool(nil), preU...), unq[start:end]...), postU...)
		out = append(out, expandBraces(alt, altU)...)
		start = end + 1
	}
	return out
}

// findBraceList finds the first brace group with a top-level comma: the
// positions of its braces and commas, or open = -1.
func findBraceList(val string, unq []bool) (open, closing int, commas []int) {
	for from := 0; ; {
		open, closing, commas = nextBraceGroup(val, unq, from)
		if open < 0 || len(commas) > 0 {
			return open, closing, commas
		}
		from = open + 1
	}
}

// globPattern is the glob of a word with unquoted glob characters, its
// quoted characters escaped, or "" when it has none. Like bash, `[`
// starts a pattern only with a `]` after it.
func globPattern(val string, unq []bool) string {
	glob := false
	for i := 0; i < len(val); i++ {
		if !unq[i] {
			continue
		}
		switch val[i] {
		case '*', '?':
			glob = true
		case '[':
			if strings.IndexByte(val[i+1:], ']') >= 0 {
				glob = true
			}
		}
	}
	if !glob {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(val); i++ {
		ch := val[i]
		if !unq[i] || ch == '\\' {
			if strings.IndexByte(`*?[]\`, ch) >= 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}
