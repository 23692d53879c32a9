// Package decisionlog keeps the project's decision log: one JSON line per
// decision clada made and per command it ran, from every entry point
// (run, exec, check, hook, mcp), in .clada/log/decisions.jsonl.
//
// Only clada writes it. A command never can: the gate refuses writes into
// .clada (rule protected-path), and the sandbox mounts .clada read-only
// (Linux) or denies writes there (Landlock, macOS). The integrity check,
// which otherwise puts back anything a command changed in .clada, leaves
// log/ alone, as it does out/: clada appends to it while other commands
// run (clada mcp's jobs, a hook in another process). The log is a record,
// never an input: nothing clada decides reads it, so a forged line can
// mislead a reader but loosens nothing.
//
// Writing follows the output store's care: .clada and .clada/log must be
// directories of their own (not symbolic links), the file is opened
// without following a symbolic link and must be a regular file with one
// link, owned by the user clada runs as; anything else is an error and
// nothing is written. Each append is one write(2) of whole lines to a
// file opened with O_APPEND, so concurrent clada processes interleave
// lines, never parts of lines.
//
// The log is bounded like the output store: when decisions.jsonl passes
// MaxBytes it becomes decisions.1.jsonl (the older ones move up to
// decisions.2.jsonl … decisions.N.jsonl, and the oldest is removed), so
// at most Keep+1 files of about MaxBytes each are kept.
package decisionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Dir is where the log lives, relative to the project root.
const Dir = ".clada/log"

// File is the current log file's name in Dir.
const File = "decisions.jsonl"

// The default bounds: a file of 4 MiB (about 10,000 entries) and four
// older ones.
const (
	DefaultMaxBytes = 4 << 20
	DefaultKeep     = 4
)

// gitignore keeps the log out of git.
const gitignore = "# clada's decision log; it does not belong in git.\n*\n"

// The entry points.
const (
	EntryRun   = "run"
	EntryExec  = "exec"
	EntryCheck = "check"
	EntryHook  = "hook"
	EntryMCP   = "mcp"
)

// Entry is one line of the log: one decision, and for a command that ran,
// how it ended.
type Entry struct {
	Time  time.Time `json:"time"`
	Entry string    `json:"entry"`           // run, exec, check, hook, mcp
	Agent string    `json:"agent,omitempty"` // claude-code, gemini, cursor; the MCP client's name
	// Command is the command line as written; Dir the directory it was
	// decided for, relative to the root ("." for the root).
	Command  string `json:"command"`
	Dir      string `json:"dir"`
	Decision string `json:"decision"` // allow, ask, deny
	Rule     string `json:"rule"`
	Word     string `json:"word,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Status is where the command ended up: planned (decided only),
	// ran, denied, not-approved, skipped.
	Status string `json:"status"`
	// ApprovedBy is who let it run: the allow rule (spec,
	// allowed-pattern, composition …), the person's answer (yes, always,
	// prefix) or trust-all.
	ApprovedBy string `json:"approved_by,omitempty"`
	// Pattern and Scope are, for a command an allowed pattern let run
	// (or that an answer of always or prefix added), the pattern and the
	// scope of the file it is in (project, personal, user, managed).
	Pattern     string `json:"pattern,omitempty"`
	Scope       string `json:"scope,omitempty"`
	NotApproved string `json:"not_approved,omitempty"`
	Sandbox     string `json:"sandbox,omitempty"` // how it was confined
	// Exit is the exit code of a command that ran and exited; Outcome
	// says how it ended otherwise (timed out, killed by SIGKILL …).
	Exit       *int     `json:"exit,omitempty"`
	Outcome    string   `json:"outcome,omitempty"`
	DurationMS *int64   `json:"duration_ms,omitempty"`
	Output     []string `json:"output,omitempty"` // saved output files, relative to the root
}

// Log is the decision log of the project at Root.
type Log struct {
	Root string
	// MaxBytes and Keep bound the log; zero means DefaultMaxBytes and
	// DefaultKeep.
	MaxBytes int64
	Keep     int
}

// New returns the log of the project at root (an absolute path).
func New(root string) *Log { return &Log{Root: root} }

// Append writes entries, one line each, in one write. It makes .clada/log
// when needed, but never .clada itself: where there is no .clada (a
// clada check in a directory clada was never set up in) it writes
// nothing and returns nil.
func (l *Log) Append(entries ...Entry) error {
	if len(entries) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range entries {
		if entries[i].Time.IsZero() {
			entries[i].Time = time.Now()
		}
		entries[i].Time = entries[i].Time.UTC().Truncate(time.Millisecond)
		if err := enc.Encode(&entries[i]); err != nil {
			return err
		}
	}
	dir, err := l.dir(true)
	if err != nil || dir == "" {
		return err
	}
	f, size, err := openAppend(filepath.Join(dir, File))
	if err != nil {
		return err
	}
	n, werr := f.Write(buf.Bytes())
	size += int64(n) // other writers' lines are counted at the next append
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("writing %s/%s: %w", Dir, File, err)
	}
	if size > l.maxBytes() {
		l.rotate(dir)
	}
	return nil
}

func (l *Log) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultMaxBytes
}

func (l *Log) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return DefaultKeep
}

// dir checks .clada and .clada/log and returns the log's directory; ""
// with a nil error where there is no .clada, or (make false) no log.
func (l *Log) dir(make bool) (string, error) {
	top := filepath.Join(l.Root, ".clada")
	fi, err := os.Lstat(top)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	case !fi.IsDir(): // a symbolic link, or a file
		return "", fmt.Errorf("%s is not a directory (a symbolic link?): clada writes no log through it", top)
	}
	dir := filepath.Join(l.Root, filepath.FromSlash(Dir))
	fi, err = os.Lstat(dir)
	if err == nil && fi.IsDir() {
		return dir, nil // the usual case: one Lstat more, no Mkdir
	}
	if make && errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o700); err == nil {
			gi, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
			if err == nil {
				_, err = gi.WriteString(gitignore)
				err = errors.Join(err, gi.Close())
			}
			if err != nil {
				return "", fmt.Errorf("writing %s/.gitignore: %w", Dir, err)
			}
		} else if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("making %s: %w", Dir, err)
		}
	}
	fi, err = os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !make:
		return "", nil
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory (a symbolic link?): clada writes no log through it; move it away and clada makes a new one", Dir)
	}
	return dir, nil
}

// rotate moves decisions.jsonl to decisions.1.jsonl, each older file one
// number up, and removes the one past Keep. Errors are ignored: the next
// append rotates again. Two clada processes rotating at once may each
// move a file; no line is lost, at worst a file is rotated early.
func (l *Log) rotate(dir string) {
	keep := l.keep()
	_ = os.Remove(filepath.Join(dir, rotated(keep)))
	for i := keep - 1; i >= 1; i-- {
		_ = os.Rename(filepath.Join(dir, rotated(i)), filepath.Join(dir, rotated(i+1)))
	}
	_ = os.Rename(filepath.Join(dir, File), filepath.Join(dir, rotated(1)))
}

// rotated is the name of the i-th older file: decisions.1.jsonl.
func rotated(i int) string {
	return strings.TrimSuffix(File, ".jsonl") + "." + strconv.Itoa(i) + ".jsonl"
}

// Read returns every entry of the log, oldest first, and the number of
// lines that are not entries (a line cut short, or one a person edited).
// A missing log is no error.
func (l *Log) Read() (entries []Entry, bad int, err error) {
	dir, err := l.dir(false)
	if err != nil || dir == "" {
		return nil, 0, err
	}
	for i := l.keep(); i >= 0; i-- {
		name := File
		if i > 0 {
			name = rotated(i)
		}
		f, err := openRead(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		n, err := readLines(f, &entries)
		f.Close()
		bad += n
		if err != nil {
			return nil, 0, fmt.Errorf("reading %s/%s: %w", Dir, name, err)
		}
	}
	return entries, bad, nil
}

func readLines(r io.Reader, out *[]Entry) (bad int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Entry == "" {
			bad++
			continue
		}
		*out = append(*out, e)
	}
	return bad, sc.Err()
}
