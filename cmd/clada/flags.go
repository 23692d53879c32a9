package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/clada/clada/internal/approve"
)

// parseTimeout reads --timeout as config.toml reads timeout: a Go
// duration ("30s", "5m", "1h30m") or a whole number of seconds ("5" is
// 5 s), from 1 s to 24 h.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := approve.ParseDuration(s)
	if err != nil {
		return 0, withHint(fmt.Errorf("--timeout %q is not a duration", s), "write 30s, 5m or 1h30m, or a number of seconds")
	}
	if d < approve.MinTimeout || d > approve.MaxTimeout {
		return 0, withHint(fmt.Errorf("--timeout %s is out of range", s), "give a duration from 1s to 24h")
	}
	return d, nil
}

// runFiles returns the file names of clada run's arguments, and the
// first word after a file name that looks like a flag with that file name
// ("" when there is none). urfave/cli stops reading flags at the first
// file, so `clada run reply.csl --dry-run` would open a file named
// --dry-run and run the reply for real. A "--" after a file makes the
// rest file names; it is not one itself.
func runFiles(args []string) (files []string, flag, file string) {
	dashes := false
	for _, a := range args {
		switch {
		case dashes:
		case a == "--" && len(files) > 0:
			dashes = true
			continue
		case len(files) > 0 && len(a) > 1 && a[0] == '-':
			return nil, a, files[0]
		}
		files = append(files, a)
	}
	return files, "", ""
}
