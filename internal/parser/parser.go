package parser

import (
	"mvdan.cc/sh/v3/syntax"
)

// Parser parses CSL documents and RUN bodies. It reuses one
// mvdan.cc/sh syntax parser, so it is not safe for concurrent use;
// the zero value is not usable, call [New].
type Parser struct {
	sh *syntax.Parser
	// windows refuses words whose backslashes the parser consumed
	// ([rules.Backslash]); New sets it on Windows.
	windows bool
}

// New returns a Parser for bash syntax, with the checks of the system it
// runs on (see [Parser.ForWindows]).
func New() *Parser {
	return &Parser{sh: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)), windows: windowsHost}
}

// ForWindows makes p refuse, or stop refusing, a word whose backslashes
// the bash syntax consumed ([rules.Backslash]): on Windows `cat a\b.go`
// would reach cat as ab.go. New turns it on when clada runs on Windows;
// `clada check --os windows` turns it on elsewhere. It returns p.
func (p *Parser) ForWindows(on bool) *Parser {
	p.windows = on
	return p
}
