package parser

import (
	"mvdan.cc/sh/v3/syntax"
)

// Parser parses CSL documents and RUN bodies. It reuses one
// mvdan.cc/sh syntax parser, so it is not safe for concurrent use;
// the zero value is not usable, call [New].
type Parser struct {
	sh *syntax.Parser
}

// New returns a Parser for bash syntax.
func New() *Parser {
	return &Parser{sh: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))}
}
