package parser

import (
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/clada/clada/internal/rules"
)

// isDashLookalike reports whether r looks like the ASCII hyphen-minus:
// the Unicode dashes U+2010–U+2015, the minus sign U+2212, the small
// and fullwidth hyphen-minus U+FE63 and U+FF0D, and other hyphens and
// minus signs that fonts draw alike.
func isDashLookalike(r rune) bool {
	switch {
	case r >= 0x2010 && r <= 0x2015: // hyphen … horizontal bar
		return true
	}
	switch r {
	case 0x2212, // minus sign
		0xFE63, // small hyphen-minus
		0xFF0D, // fullwidth hyphen-minus
		0x02D7, // modifier letter minus sign
		0x058A, // Armenian hyphen
		0x05BE, // Hebrew maqaf
		0x1806, // Mongolian todo soft hyphen
		0x2043, // hyphen bullet
		0x207B, // superscript minus
		0x208B, // subscript minus
		0x2796, // heavy minus sign
		0x2E3A, // two-em dash
		0x2E3B, // three-em dash
		0xFE58: // small em dash
		return true
	}
	return false
}

// lookalike checks the arguments (not the program name, which
// checkName keeps to ASCII) for a leading dash lookalike, or a non-ASCII
// character right after a leading "-" or "--".
func lookalike(src string, args []*syntax.Word, argv []string) *rules.Denied {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		r, _ := utf8.DecodeRuneInString(a)
		what := ""
		switch {
		case isDashLookalike(r):
			what = fmt.Sprintf("starts with %U, a dash that looks like `-` but is not one", r)
		case strings.HasPrefix(a, "-"):
			rest := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
			if r2, n := utf8.DecodeRuneInString(rest); n > 0 && r2 >= utf8.RuneSelf {
				what = fmt.Sprintf("has %U where the flag's letter would stand, a character that is not ASCII", r2)
			}
		}
		if what == "" {
			continue
		}
		w := args[i]
		pos := w.Pos()
		return &rules.Denied{Rule: rules.Lookalike, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
			Reason: fmt.Sprintf("the argument `%s` %s: the program would not read it as the flag it looks like", a, what),
			Advice: "write flags with the ASCII hyphen-minus `-` and ASCII letters (rm -f, not rm ‐f); to pass such text, quote it after `--`"}
	}
	return nil
}

// consumedBackslash returns the first word whose backslashes the bash
// parser removed: any backslash in unquoted text (a\b is ab, a\\b is
// a\b), and \\, \$, \`, \" or a backslash-newline inside double quotes.
// Backslashes in single quotes are kept, and so are those in double
// quotes before other characters.
func consumedBackslash(src string, args []*syntax.Word) *syntax.Word {
	for _, w := range args {
		for _, part := range w.Parts {
			switch x := part.(type) {
			case *syntax.Lit:
				if strings.IndexByte(x.Value, '\\') >= 0 {
					return w
				}
			case *syntax.DblQuoted:
				for _, dp := range x.Parts {
					lit, ok := dp.(*syntax.Lit)
					if ok && dqUnescape(lit.Value) != lit.Value {
						return w
					}
				}
			}
		}
	}
	return nil
}

// backslashDenial is the Windows refusal of a word whose backslashes the
// parser consumed.
func backslashDenial(src string, w *syntax.Word) *rules.Denied {
	pos := w.Pos()
	return &rules.Denied{Rule: rules.Backslash, Word: nodeText(src, w), Line: int(pos.Line()), Col: int(pos.Col()),
		Reason: fmt.Sprintf("`%s` holds a backslash that the bash syntax of RUN blocks removes, so the program would not see it: on Windows that is a path separator lost", nodeText(src, w)),
		Advice: "write paths with `/` (cat calc/calc.go), which Windows programs accept; put a backslash that must stay in single quotes"}
}

// windowsHost is whether backslash checks apply by default.
var windowsHost = runtime.GOOS == "windows"
