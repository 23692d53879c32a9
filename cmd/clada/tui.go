package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/clada/clada/internal/project"
)

// hintError is an error of clada's own with advice for the person.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

func withHint(err error, format string, a ...any) error {
	return &hintError{err: err, hint: fmt.Sprintf(format, a...)}
}

// printError prints one of clada's own failures (usage, unreadable files)
// the way age's tui.go does: an error line, then a hint line.
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "clada: error: %v\n", err)
	var h *hintError
	var p *project.Error
	switch {
	case errors.As(err, &h) && h.hint != "":
		fmt.Fprintf(w, "clada: hint: %s\n", h.hint)
	case errors.As(err, &p) && p.Hint != "":
		fmt.Fprintf(w, "clada: hint: %s\n", p.Hint)
	}
}

// warnf prints a warning about something the person chose.
func warnf(w io.Writer, format string, a ...any) {
	fmt.Fprintf(w, "clada: warning: "+format+"\n", a...)
}
