package main

import (
	"errors"
	"io"
	"os"

	"github.com/clada/clada/internal/report"
)

// githubOptions reads the github format's options from the environment:
// the working directory, $GITHUB_WORKSPACE (else the project root) as the
// repository that annotation paths are relative to, and
// $GITHUB_STEP_SUMMARY, opened for appending. done closes that file, and
// warns on stderr when it could not be written: the annotations are
// complete without it.
func githubOptions(root string, stderr io.Writer) (o report.GitHubOptions, done func()) {
	o.Workdir, _ = os.Getwd()
	o.Repo = root
	if ws := os.Getenv("GITHUB_WORKSPACE"); ws != "" {
		o.Repo = ws
	}
	done = func() {}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return o, done
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		warnf(stderr, "cannot write the step summary: %v", err)
		return o, done
	}
	w := &errWriter{w: f}
	o.StepSummary = w
	return o, func() {
		if err := errors.Join(w.err, f.Close()); err != nil {
			warnf(stderr, "writing the step summary %s: %v", path, err)
		}
	}
}

// errWriter keeps the first error of w and writes nothing after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
