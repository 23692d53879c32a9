package parser

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/clada/clada/internal/rules"
)

// MaxArg is the longest argument clada accepts, in bytes (128 KiB, the
// Linux limit for one argument).
const MaxArg = 128 << 10

// Command turns one command line into argv, refusing exactly what a RUN
// body refuses. It is what `clada check` and the allowed/blocked patterns
// use. A body that breaks docs/csl.md §5 (two commands, a code fence …) is
// refused with [rules.CSLSyntax]. The error is always a *[rules.Denied].
func (p *Parser) Command(body string) ([]string, error) {
	argv, denied, blockErr := p.analyzeRun(body)
	if blockErr != "" {
		return nil, &rules.Denied{Rule: rules.CSLSyntax, Reason: blockErr,
			Advice: "write exactly one simple command"}
	}
	if denied != nil {
		return nil, denied
	}
	return argv, nil
}

// Command is [Parser.Command] with a fresh parser.
func Command(body string) ([]string, error) { return New().Command(body) }

// parseBody checks a RUN body as docs/csl.md §5 requires, but for its
// number of commands, and parses it: blockErr is the CSL block error, ""
// when the body is valid. A body of only comments is an error.
func (p *Parser) parseBody(body string) (f *syntax.File, blockErr string) {
	// 1. and 2.: a code fence on the first non-blank line; a blank body.
	firstLine, lastLine, blank := "", "", true
	for rest := body; rest != ""; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if strings.TrimSpace(l) != "" {
			if blank {
				firstLine, blank = l, false
			}
			lastLine = l
		}
	}
	if blank {
		return nil, "empty RUN block: write one command between the markers"
	}
	if strings.HasPrefix(strings.TrimLeft(firstLine, " \t"), "```") {
		return nil, "markdown code fence inside RUN block: write the command without ``` fences"
	}
	// mvdan.cc/sh joins the line after a comment ending in `\` to the
	// command, but bash ends a comment at the newline whatever precedes
	// it, so the next line is a second command.
	if line := continuedComment(body); line > 0 {
		return nil, fmt.Sprintf("more than one command in RUN block: the comment on body line %d ends with `\\`, "+
			"which does not continue a comment in bash, so the next line is a command of its own; "+
			"put each command in its own RUN block", line)
	}
	// 3. The body must parse as bash.
	f, err := p.sh.Parse(strings.NewReader(body), "")
	if err != nil {
		return nil, "invalid shell syntax in RUN block: " + parseMessage(err) +
			"; check quotes and brackets"
	}
	if len(f.Stmts) == 0 {
		return nil, "empty RUN block: it holds only comments; write one command"
	}
	// 6. A dangling line continuation.
	t := strings.TrimRight(lastLine, " \t")
	n := len(t) - len(strings.TrimRight(t, `\`))
	if n%2 == 1 {
		return nil, "dangling line continuation at end of RUN block: remove the final `\\`"
	}
	return f, ""
}

// analyzeRun checks a RUN body as docs/csl.md §5 requires and, when it is one
// statement, turns it into argv. blockErr is a CSL block error message
// ("" when the body is valid CSL); denied is set when the body is valid
// CSL but not a plain simple command. At most one of blockErr, denied
// and argv is set.
func (p *Parser) analyzeRun(body string) (argv []string, denied *rules.Denied, blockErr string) {
	f, blockErr := p.parseBody(body)
	if blockErr != "" {
		return nil, nil, blockErr
	}
	// 4. and 5.
	if len(f.Stmts) > 1 {
		return nil, nil, "more than one command in RUN block: put each command in its own RUN block"
	}
	argv, denied = simpleCommand(body, f.Stmts[0])
	if denied == nil && p.windows {
		if w := consumedBackslash(body, f.Stmts[0].Cmd.(*syntax.CallExpr).Args); w != nil {
			return nil, backslashDenial(body, w), ""
		}
	}
	return argv, denied, ""
}

// continuedComment returns the 1-based line of the first comment that
// follows words of a command on its line, ends with a backslash and is
// followed by a non-blank line, or 0. (A comment alone on its line is
// harmless: bash and mvdan both take the next line as the command.) It
// follows bash's quoting just far enough to find comments: a # that
// starts a word outside quotes.
func continuedComment(body string) int {
	if strings.IndexByte(body, '#') < 0 {
		return 0
	}
	line := 1
	wordStart := true
	hasWord := false // the logical line so far holds a word
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != ' ' && c != '\t' && c != '\n' && c != '#' {
			hasWord = true
		}
		switch {
		case c == '\\':
			if i+1 < len(body) && body[i+1] == '\n' {
				line++
			}
			i++
			wordStart = false
			continue
		case c == '\'':
			ansi := i > 0 && body[i-1] == '$'
			for i++; i < len(body) && body[i] != '\''; i++ {
				if body[i] == '\n' {
					line++
				}
				if ansi && body[i] == '\\' {
					i++
				}
			}
		case c == '"':
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
				}
				if i < len(body) && body[i] == '\n' {
					line++
				}
			}
		case c == '#' && wordStart:
			end := strings.IndexByte(body[i:], '\n')
			if end < 0 {
				return 0
			}
			if hasWord && strings.HasSuffix(body[i:i+end], `\`) && strings.TrimSpace(body[i+end:]) != "" {
				return line
			}
			i += end - 1
			continue
		case c == '\n':
			line++
			hasWord = false
		}
		wordStart = strings.IndexByte(" \t\n;&|()<>", c) >= 0
	}
	return 0
}

// parseMessage keeps the body line of a mvdan parse error but drops its
// column prefix, so the CSL error can carry the block's own line.
func parseMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %s", pe.Pos.Line(), pe.Text)
	}
	return err.Error()
}

// simpleCommand accepts only a plain simple command and returns its argv
// after bash's quote removal.
func simpleCommand(src string, st *syntax.Stmt) ([]string, *rules.Denied) {
	deny := func(rule rules.Rule, n syntax.Node, reason, advice string) *rules.Denied {
		e := &rules.Denied{Rule: rule, Reason: reason, Advice: advice}
		if n != nil {
			pos := n.Pos()
			e.Line, e.Col = int(pos.Line()), int(pos.Col())
			e.Word = nodeText(src, n)
		}
		return e
	}
	if st.Negated {
		return nil, &rules.Denied{Rule: rules.ShellSyntax, Word: "!", Line: int(st.Pos().Line()), Col: int(st.Pos().Col()),
			Reason: "`!` negates the exit status, which needs a shell",
			Advice: "run the command without `!`; clada reports the exit code"}
	}
	if st.Background {
		return nil, &rules.Denied{Rule: rules.ShellSyntax, Word: "&", Line: int(st.Semicolon.Line()), Col: int(st.Semicolon.Col()),
			Reason: "`&` runs the command in the background, which needs a shell",
			Advice: "remove the `&`; clada runs each command to completion with a timeout"}
	}
	if st.Coprocess {
		return nil, deny(rules.ShellSyntax, st, "coproc needs a shell", "run the command on its own")
	}
	for _, r := range st.Redirs {
		return nil, deny(rules.Redirect, r, fmt.Sprintf("`%s` is a redirection, which needs a shell", r.Op),
			redirectAdvice(r.Op))
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, compoundDenial(src, st.Cmd)
	}
	if len(call.Assigns) > 0 {
		a := call.Assigns[0]
		return nil, deny(rules.Assignment, a, fmt.Sprintf("`%s` sets an environment variable, which needs a shell", nodeText(src, a)),
			"remove the assignment; pass the setting as a command-line flag or ask the person to set it before starting clada")
	}
	if len(call.Args) == 0 {
		return nil, deny(rules.ShellSyntax, st, "no command word", "write one command")
	}
	argv := make([]string, 0, len(call.Args))
	for i, w := range call.Args {
		arg, d := wordValue(src, w, i == 0)
		if d != nil {
			return nil, d
		}
		argv = append(argv, arg)
	}
	if d := checkName(argv[0], call.Args[0], src); d != nil {
		return nil, d
	}
	if d := lookalike(src, call.Args, argv); d != nil {
		return nil, d
	}
	return argv, nil
}

func redirectAdvice(op syntax.RedirOperator) string {
	switch op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "pass the file name as an argument instead of feeding it on stdin; commands run with stdin closed"
	default:
		return "drop the redirection; clada captures stdout and stderr and reports them, and files are written with a WRITE block"
	}
}

// compoundDenial names the construct that is not a simple command.
func compoundDenial(src string, cmd syntax.Command) *rules.Denied {
	e := &rules.Denied{Rule: rules.ShellSyntax}
	pos := cmd.Pos()
	e.Line, e.Col = int(pos.Line()), int(pos.Col())
	e.Advice = "write one plain command per RUN block; put commands that belong together in a TASKS group"
	switch c := cmd.(type) {
	case *syntax.BinaryCmd:
		e.Word = c.Op.String()
		e.Line, e.Col = int(c.OpPos.Line()), int(c.OpPos.Col())
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			e.Reason = fmt.Sprintf("`%s` is a pipe, which needs a shell", c.Op)
			e.Advice = "run each command in its own RUN block; clada reports each one's output"
		default:
			e.Reason = fmt.Sprintf("`%s` chains commands, which needs a shell", c.Op)
			e.Advice = "put each command in its own RUN block inside a TASKS group; the group stops at the first failure"
		}
		if startsWithCd(c.X) {
			e.Advice = "instead of `cd DIR && …`, give the block a dir attribute: <---RUN dir=\"DIR\"---> with the command alone"
		}
		return e
	case *syntax.DeclClause:
		e.Rule = rules.Builtin
		e.Word = c.Variant.Value
		e.Reason = fmt.Sprintf("`%s` is a shell builtin, which means nothing without a shell", c.Variant.Value)
		e.Advice = "clada runs commands with the environment it was started with; pass settings as flags"
		return e
	case *syntax.Subshell:
		e.Word = "("
		e.Reason = "`( … )` is a subshell, which needs a shell"
	case *syntax.Block:
		e.Word = "{"
		e.Reason = "`{ … }` is a command group, which needs a shell"
	case *syntax.IfClause:
		e.Word = "if"
		e.Reason = "`if` is a shell conditional"
	case *syntax.WhileClause:
		e.Word = "while"
		if c.Until {
			e.Word = "until"
		}
		e.Reason = fmt.Sprintf("`%s` is a shell loop", e.Word)
	case *syntax.ForClause:
		e.Word = "for"
		if c.Select {
			e.Word = "select"
		}
		e.Reason = fmt.Sprintf("`%s` is a shell loop", e.Word)
		e.Advice = "write one RUN block per iteration"
	case *syntax.CaseClause:
		e.Word = "case"
		e.Reason = "`case` is a shell conditional"
	case *syntax.FuncDecl:
		e.Word = "()"
		if c.Name != nil {
			e.Word = c.Name.Value
		}
		e.Reason = fmt.Sprintf("`%s` declares a shell function", oneLineText(nodeText(src, c)))
	case *syntax.ArithmCmd:
		e.Word = "(("
		e.Reason = "`(( … ))` is shell arithmetic"
	case *syntax.TestClause:
		e.Word = "[["
		e.Reason = "`[[ … ]]` is a shell test"
		e.Advice = "run `test` as a plain command, or check the condition from the command's output"
	case *syntax.LetClause:
		e.Rule = rules.Builtin
		e.Word = "let"
		e.Reason = "`let` is shell arithmetic"
	case *syntax.TimeClause:
		e.Word = "time"
		e.Reason = "`time` is a shell keyword"
		e.Advice = "run the command on its own; clada reports how long it took"
	case *syntax.CoprocClause:
		e.Word = "coproc"
		e.Reason = "`coproc` needs a shell"
	default:
		e.Word = nodeText(src, cmd)
		e.Reason = "this is not a simple command"
	}
	return e
}

// oneLineText shortens text to its first line for a reason.
func oneLineText(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// startsWithCd reports whether the leftmost command of a chain is cd.
func startsWithCd(st *syntax.Stmt) bool {
	for st != nil {
		switch c := st.Cmd.(type) {
		case *syntax.BinaryCmd:
			st = c.X
		case *syntax.CallExpr:
			return len(c.Args) > 0 && c.Args[0].Lit() == "cd"
		default:
			return false
		}
	}
	return false
}

// nodeText returns the source text of a node, capped for reports.
func nodeText(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	t := src[s:e]
	if len(t) > 200 {
		t = t[:200] + "…"
	}
	return t
}

// wordValue performs bash's quote removal on a word made only of literal
// text, refusing every expansion. first is true for the command name.
func wordValue(src string, w *syntax.Word, first bool) (string, *rules.Denied) {
	raw := src[w.Pos().Offset():w.End().Offset()]
	// The common word is one piece of unquoted text without escapes or
	// braces: its value is the text itself, with nothing to build.
	if len(w.Parts) == 1 && !strings.ContainsAny(raw, "\\{") {
		if x, ok := w.Parts[0].(*syntax.Lit); ok {
			if i := strings.IndexByte(x.Value, '='); i <= 0 || !assignWordRe().MatchString(x.Value) {
				if d := unquotedLit(x, w, src, true, false, false); d != nil {
					return "", d
				}
				return checkValue(src, w, x.Value)
			}
		}
	}
	val, unq, d := literalWord(src, w, false, strings.IndexByte(raw, '{') >= 0)
	if d != nil {
		return "", d
	}
	if d := braceCheck(val, unq); d != "" {
		pos := w.Pos()
		return "", &rules.Denied{Rule: rules.Expansion, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
			Reason: fmt.Sprintf("`%s` is brace expansion (%s), which bash would turn into several words", nodeText(src, w), d),
			Advice: "write each word out, or quote the braces"}
	}
	return checkValue(src, w, val)
}

// literalWord performs bash's quote removal on a word made only of
// literal text, refusing every expansion but, when globs is set, glob
// characters. It returns the value and, when trackUnq is set, whether
// each of its bytes came from unquoted text (for the brace and glob
// rules, which ignore quoted characters).
func literalWord(src string, w *syntax.Word, globs, trackUnq bool) (string, []bool, *rules.Denied) {
	deny := func(rule rules.Rule, n syntax.Node, reason, advice string) *rules.Denied {
		pos := n.Pos()
		return &rules.Denied{Rule: rule, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
			Reason: reason, Advice: advice}
	}
	raw := src[w.Pos().Offset():w.End().Offset()]
	var b strings.Builder
	var unq []bool
	push := func(s string, unquoted bool) {
		b.WriteString(s)
		if trackUnq {
			for range len(s) {
				unq = append(unq, unquoted)
			}
		}
	}
	// bash removes a line continuation before it expands, so
	// `$\<newline>HOME` is $HOME and `$\<newline>'x'` is $'x'; mvdan drops
	// the continuation and reads a literal $. Refused on the word as
	// written (conservatively also inside single quotes).
	if strings.Contains(raw, "$\\\n") {
		for i := strings.Index(raw, "$\\\n"); i >= 0; {
			n := 0
			for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				return "", nil, deny(rules.Expansion, w, fmt.Sprintf("`$` followed by a line continuation in `%s` is an expansion in bash", oneLineText(raw)),
					"write the value out literally without `$`, or put it in single quotes")
			}
			next := strings.Index(raw[i+1:], "$\\\n")
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	assignLike := false
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			// The IndexByte guard skips the regexp for the words
			// without '=' (nearly all): it was 9% of a dry run.
			if i == 0 && strings.IndexByte(x.Value, '=') > 0 && assignWordRe().MatchString(x.Value) {
				assignLike = true
			}
			if d := unquotedLit(x, w, src, i == 0, assignLike, globs); d != nil {
				return "", nil, d
			}
			for _, seg := range unescape(x.Value) {
				push(seg.text, !seg.escaped)
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", nil, deny(rules.Expansion, x, "`$'…'` is an ANSI-C quoted string, which bash expands",
					"use plain single quotes and write the characters out")
			}
			push(x.Value, false)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", nil, deny(rules.Expansion, x, "`$\"…\"` is a locale-translated string, which bash expands",
					"use plain double or single quotes")
			}
			for _, dp := range x.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return "", nil, partDenial(src, w, dp)
				}
				push(dqUnescape(lit.Value), false)
			}
		default:
			return "", nil, partDenial(src, w, part)
		}
	}
	return b.String(), unq, nil
}

// checkValue applies the checks every argument's value gets: its length
// and its characters.
func checkValue(src string, w *syntax.Word, val string) (string, *rules.Denied) {
	if len(val) > MaxArg {
		return "", &rules.Denied{Rule: rules.ArgTooLong, Word: nodeText(src, w)[:40] + "…", Line: int(w.Pos().Line()), Col: int(w.Pos().Col()),
			Reason: fmt.Sprintf("an argument of %d bytes is over clada's limit of %d", len(val), MaxArg),
			Advice: "pass large content in a file written with a WRITE block"}
	}
	if r, off := badRune(val); off >= 0 {
		pos := w.Pos()
		return "", &rules.Denied{Rule: rules.Character, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
			Reason: fmt.Sprintf("the argument contains %U, an invisible or control character", r),
			Advice: "write the argument with visible characters only"}
	}
	return val, nil
}

// assignWordRe and seqRe are compiled on first use: most runs never need
// them, and compiling at start-up costs every `clada check`.
var assignWordRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=`)
})

// partDenial explains a word part that is not literal text.
func partDenial(src string, w *syntax.Word, part syntax.WordPart) *rules.Denied {
	e := &rules.Denied{Word: nodeText(src, w), Line: int(part.Pos().Line()), Col: int(part.Pos().Col())}
	text := nodeText(src, part)
	switch x := part.(type) {
	case *syntax.ParamExp:
		e.Rule = rules.Expansion
		e.Reason = fmt.Sprintf("`%s` is parameter expansion, which needs a shell", text)
		e.Advice = "write the value out literally (for $HOME write the path; for a relative path use the dir attribute)"
		if x.Param != nil && x.Param.Value == "HOME" {
			e.Advice = "write paths relative to the project root instead of $HOME"
		}
	case *syntax.CmdSubst:
		e.Rule = rules.Substitution
		e.Reason = fmt.Sprintf("`%s` is command substitution, which needs a shell", text)
		e.Advice = "run the inner command in its own RUN block first, then write its result literally in the next command"
	case *syntax.ProcSubst:
		e.Rule = rules.Substitution
		e.Reason = fmt.Sprintf("`%s` is process substitution, which needs a shell", text)
		e.Advice = "write the inner command's output to a file with a WRITE block or run it separately, then pass the file name"
	case *syntax.ArithmExp:
		e.Rule = rules.Expansion
		e.Reason = fmt.Sprintf("`%s` is arithmetic expansion, which needs a shell", text)
		e.Advice = "compute the number yourself and write it literally"
	case *syntax.ExtGlob:
		e.Rule = rules.Glob
		e.Reason = fmt.Sprintf("`%s` is an extended glob, which needs a shell", text)
		e.Advice = "list the file names explicitly, or use find/ls to list them first"
	default:
		e.Rule = rules.Expansion
		e.Reason = fmt.Sprintf("`%s` needs a shell to expand", text)
		e.Advice = "write the value out literally, in single quotes"
	}
	return e
}

// unquotedLit refuses glob characters and tilde expansion in unquoted
// literal text. Escaped characters are literal.
func unquotedLit(x *syntax.Lit, w *syntax.Word, src string, wordStart, assignLike, globs bool) *rules.Denied {
	v := x.Value
	deny := func(rule rules.Rule, off int, reason, advice string) *rules.Denied {
		pos := x.Pos()
		return &rules.Denied{Rule: rule, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()) + off,
			Reason: reason, Advice: advice}
	}
	afterEq := false // inside an assignment-like word, past its first '='
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' {
			i++
			continue
		}
		switch c {
		case '*', '?', '[':
			if globs {
				continue // clada expands them itself (compositions)
			}
		}
		switch c {
		case '*', '?':
			return deny(rules.Glob, i, fmt.Sprintf("`%c` in `%s` is a glob, which a shell would expand to file names", c, nodeText(src, w)),
				"list the files explicitly, or quote the argument if the character is meant literally")
		case '[':
			// Like bash, `[` starts a pattern only when a `]` follows
			// in the same word.
			rest := src[int(x.Pos().Offset())+i+1 : int(w.End().Offset())]
			if strings.IndexByte(rest, ']') >= 0 {
				return deny(rules.Glob, i, fmt.Sprintf("`[` in `%s` starts a glob bracket, which a shell would expand to file names", nodeText(src, w)),
					"list the files explicitly, or quote the argument if the brackets are meant literally")
			}
		case '~':
			if (i == 0 && wordStart) || (assignLike && afterEq && i > 0 && (v[i-1] == '=' || v[i-1] == ':')) {
				return deny(rules.Expansion, i, fmt.Sprintf("`~` in `%s` is tilde expansion to a home directory", nodeText(src, w)),
					"write paths relative to the project root; the home directory is outside it")
			}
		case '=':
			afterEq = true
		}
	}
	return nil
}

type segment struct {
	text    string
	escaped bool
}

// unescape performs quote removal on unquoted literal text: `\x` is x,
// `\<newline>` disappears. Escaped characters are marked so later checks
// treat them as quoted.
func unescape(v string) []segment {
	if strings.IndexByte(v, '\\') < 0 {
		return []segment{{text: v}}
	}
	var segs []segment
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		if i > start {
			segs = append(segs, segment{text: v[start:i]})
		}
		if i+1 >= len(v) {
			// A trailing backslash with nothing after it stays literal.
			segs = append(segs, segment{text: `\`, escaped: true})
			start = len(v)
			break
		}
		_, size := utf8.DecodeRuneInString(v[i+1:])
		if v[i+1] != '\n' {
			segs = append(segs, segment{text: v[i+1 : i+1+size], escaped: true})
		}
		i += size
		start = i + 1
	}
	if start < len(v) {
		segs = append(segs, segment{text: v[start:]})
	}
	return segs
}

// dqUnescape performs quote removal inside double quotes: a backslash
// escapes only $, `, ", \ and newline (which it removes); elsewhere it
// stays.
func dqUnescape(v string) string {
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// braceCheck reports whether the unquoted characters of val form a bash
// brace expansion: a `{…}` holding a top-level comma, or a sequence
// `{1..3}`, `{a..e}`, `{1..9..2}`. It returns a short description, or "".
func braceCheck(val string, unq []bool) string {
	if strings.IndexByte(val, '{') < 0 {
		return ""
	}
	for from := 0; ; {
		open, closing, commas := nextBraceGroup(val, unq, from)
		switch {
		case open < 0:
			return ""
		case len(commas) > 0:
			return "a comma list"
		case allUnquoted(unq[open+1:closing]) && seqRe().MatchString(val[open+1:closing]):
			return "a sequence"
		}
		from = open + 1
	}
}

// nextBraceGroup finds the first unquoted `{` at or after from that an
// unquoted `}` closes: the positions of the two braces and of the commas
// between them at its top level, or open = -1 when there is none.
func nextBraceGroup(val string, unq []bool, from int) (open, closing int, commas []int) {
	for i := from; i < len(val); i++ {
		if val[i] != '{' || !unq[i] {
			continue
		}
		depth := 0
		commas = commas[:0]
		for j := i; j < len(val); j++ {
			if !unq[j] {
				continue
			}
			switch val[j] {
			case '{':
				depth++
			case ',':
				if depth == 1 {
					commas = append(commas, j)
				}
			case '}':
				depth--
				if depth == 0 {
					return i, j, commas
				}
			}
		}
	}
	return -1, -1, nil
}

func allUnquoted(u []bool) bool {
	for _, b := range u {
		if !b {
			return false
		}
	}
	return true
}

var seqRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([+-]?[0-9]+\.\.[+-]?[0-9]+|[^0-9\\]\.\.[^0-9\\])(\.\.[+-]?[0-9]+)?$`)
})

// badRune finds NUL, control characters other than tab and newline,
// DEL, C1 controls, bidi controls and zero-width characters.
func badRune(s string) (rune, int) {
	for i, r := range s {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20, r == 0x7f:
			return r, i
		case r < 0x7f:
			// Printable ASCII: the common case, no table lookups.
		case r >= 0x80 && r <= 0x9f, r == utf8.RuneError, isInvisible(r):
			return r, i
		}
	}
	return 0, -1
}

func isInvisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, // zero-width space/joiners, LRM, RLM
		r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069, // bidi isolates
		r == 0x061c, r == 0xfeff, r == 0x00ad, r == 0x180e:
		return true
	}
	// Format characters (Cf) and the Unicode line and paragraph separators,
	// which some terminals and editors show as line breaks.
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// builtins are shell builtins with no meaning outside a shell, with the
// advice for each. Keep sorted; docs/rules.md's table is generated from it.
var builtins = map[string]string{
	".":         "run the script as a program, or ask the person",
	"alias":     "write the full command each time",
	"bg":        "clada has no job control; run commands to completion",
	"bind":      "there is no interactive shell",
	"builtin":   "run the program by name",
	"caller":    "there is no shell function stack",
	"cd":        "use the dir attribute: <---RUN dir=\"sub/dir\"--->",
	"compgen":   "there is no interactive shell",
	"complete":  "there is no interactive shell",
	"declare":   "clada runs commands with the environment it was started with; pass settings as flags",
	"dirs":      "use the dir attribute",
	"disown":    "clada has no job control",
	"enable":    "there are no builtins to enable",
	"eval":      "write the command itself",
	"exec":      "write the command itself",
	"exit":      "clada reports each command's exit code; nothing to exit",
	"export":    "clada runs commands with the environment it was started with; pass settings as flags",
	"fc":        "there is no shell history",
	"fg":        "clada has no job control",
	"getopts":   "there is no shell script",
	"hash":      "clada resolves programs itself",
	"history":   "there is no shell history",
	"jobs":      "clada has no job control",
	"let":       "compute the number yourself",
	"local":     "there is no shell function",
	"logout":    "there is no login shell",
	"mapfile":   "read files with cat",
	"popd":      "use the dir attribute",
	"pushd":     "use the dir attribute",
	"read":      "commands run with stdin closed",
	"readarray": "read files with cat",
	"readonly":  "there are no shell variables",
	"return":    "there is no shell function",
	"set":       "there are no shell options",
	"shift":     "there are no positional parameters",
	"shopt":     "there are no shell options",
	"source":    "run the script as a program, or ask the person",
	"suspend":   "clada has no job control",
	"trap":      "clada handles signals itself",
	"typeset":   "there are no shell variables",
	"ulimit":    "ask the person to set limits before starting clada",
	"umask":     "ask the person to set the umask before starting clada",
	"unalias":   "there are no aliases",
	"unset":     "there are no shell variables",
	"wait":      "clada waits for every command",
}

// checkName refuses builtins and suspicious characters in the command
// name, where a homoglyph or invisible character could disguise what
// runs.
func checkName(name string, w *syntax.Word, src string) *rules.Denied {
	pos := w.Pos()
	if advice, ok := builtins[name]; ok {
		return &rules.Denied{Rule: rules.Builtin, Word: name, Line: int(pos.Line()), Col: int(pos.Col()),
			Reason: fmt.Sprintf("`%s` is a shell builtin, which means nothing without a shell", name),
			Advice: advice}
	}
	for _, r := range name {
		if r >= utf8.RuneSelf {
			return &rules.Denied{Rule: rules.Character, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
				Reason: fmt.Sprintf("the command name contains %U, a non-ASCII character that can disguise which program runs", r),
				Advice: "write the program name in plain ASCII"}
		}
	}
	if name == "" {
		return &rules.Denied{Rule: rules.ShellSyntax, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
			Reason: "the command name is empty", Advice: "write the program name first"}
	}
	return nil
}

// Quote returns argv as one bash command line that parses back to the
// same argv: words that need no quoting stay bare, others are single
// quoted. It is what clada shows when it asks the person, so what is
// approved is exactly what runs.
func Quote(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
			if plainArg(a) {
				// Arguments are never keywords or assignments, so
				// `--out=x` needs no quotes here.
				b.WriteString(a)
				continue
			}
		}
		b.WriteString(QuoteWord(a))
	}
	return b.String()
}

// plainArg reports whether an argument (not the command name) means the
// same to bash unquoted: only characters that never expand or split.
func plainArg(s string) bool { return BareWord(s, "_@%+=:,./^-") }

// BareWord reports whether s is not empty and holds only ASCII letters,
// digits and bytes of punct: the test of each quoter for a word it
// leaves bare, with the punctuation its shells take literally.
func BareWord(s, punct string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte(punct, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// QuoteWord quotes one word for bash, as a command name or anywhere else
// (see [Quote]).
func QuoteWord(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err == nil && !strings.HasPrefix(q, "$'") {
		return q
	}
	// Tabs, newlines and other characters syntax.Quote writes as $'…':
	// single quotes keep every byte but NUL literally.
	return SingleQuote(s)
}

// SingleQuote writes s in single quotes, each single quote in it closing
// the quotes, escaped with a backslash, and opening them again: every
// POSIX shell reads it back as s,
// newlines and backslashes included. It is the one quoting of [Quote],
// [QuoteWord] and hook.ShellQuote for what needs quotes.
func SingleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
