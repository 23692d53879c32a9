package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// DefaultTimeout is how long a command may run when [Config.Timeout] is zero.
const DefaultTimeout = 60 * time.Second

// DefaultMaxOutput is how many bytes of stdout and stderr together are
// passed on when [Config.MaxOutput] is zero.
const DefaultMaxOutput = 10_000_000

// DefaultWaitDelay is how long Run keeps reading the output pipes after the
// command is gone when [Config.WaitDelay] is zero.
const DefaultWaitDelay = 2 * time.Second

// cancelGrace replaces WaitDelay once ctx is canceled.
const cancelGrace = 100 * time.Millisecond

// ErrNoCommand is returned in [Result.Err] when argv is empty.
var ErrNoCommand = errors.New("empty command")

// Config says how [Run] runs a command. Its zero value is the safe default:
// stdin closed, current directory, the caller's environment, a 60 s timeout,
// a 10 MB output cap and the output discarded. No value of Config turns the
// timeout or the cap off.
type Config struct {
	// Dir is the working directory; "" means the caller's current directory.
	Dir string
	// Env is the command's full environment. nil means the caller's
	// environment (os.Environ, plus PWD=Dir as os/exec sets it); an empty,
	// non-nil slice means an empty environment.
	Env []string
	// Name is the argv[0] the program sees: the name the command was
	// written with (`ls`), while the program started is argv[0] of
	// [Run], often its absolute path, so that its messages name it as
	// the person or model wrote it (`ls: …`, not `/usr/bin/ls: …`). ""
	// means argv[0] itself.
	Name string
	// Timeout bounds the command's run time; zero or negative means
	// DefaultTimeout. When it expires the whole process group is killed.
	Timeout time.Duration
	// Pause, when not nil, stops the clock of Timeout while it is held
	// (see [Pause]); the command runs on meanwhile.
	Pause *Pause
	// MaxOutput caps stdout and stderr together, in bytes; zero or negative
	// means DefaultMaxOutput. The first byte past it kills the command.
	MaxOutput int64
	// WaitDelay bounds how long Run keeps reading the output pipes once the
	// command has exited or been killed (a process that escaped the group may
	// still hold them); zero or negative means DefaultWaitDelay.
	WaitDelay time.Duration
	// TempRoot is where Run makes the command's private temporary
	// directory; "" means os.TempDir(). Every command gets one: TMPDIR,
	// TMP and TEMP in its environment name it (replacing any in Env), and
	// Run removes it with all its contents when the command ends, however
	// it ends. No value turns this off.
	TempRoot string
	// Stdout and Stderr receive what the command prints on each stream, in
	// order, up to the cap, in chunks of at most 32 KiB: Run itself holds
	// no more than that per stream, however much the command prints. nil
	// discards the stream (its bytes still count against the cap). Each is
	// written from a goroutine of its own, so the two may be written at the
	// same time, and neither after Run returns. A Write error stops the
	// writes to that sink (see [Result.WriteErr]); the command goes on.
	Stdout, Stderr io.Writer
	// Start starts the prepared command in place of cmd.Start, given the
	// command's private temporary directory: the sandbox confines the
	// command this way. It must start cmd as it is (its process group,
	// environment, directory and standard streams are Run's) or return
	// an error and start nothing. nil means cmd.Start.
	Start func(cmd *exec.Cmd, tmpDir string) error
}

// Status says how a command ended.
type Status int

// The zero Status is deliberately none of these, so that a zero [Result] is
// never mistaken for a successful run.
const (
	_                 Status = iota
	StatusExited             // exited on its own; see Result.ExitCode
	StatusSignaled           // killed by a signal it was not sent by Run
	StatusTimedOut           // killed by Run when Config.Timeout expired
	StatusTruncated          // killed by Run when output passed Config.MaxOutput
	StatusCanceled           // killed by Run when ctx was canceled (Ctrl-C)
	StatusStartFailed        // never ran: not found, not executable, bad Dir
)

// String returns the status as the report shows it.
func (s Status) String() string {
	switch s {
	case StatusExited:
		return "exited"
	case StatusSignaled:
		return "signaled"
	case StatusTimedOut:
		return "timed out"
	case StatusTruncated:
		return "truncated"
	case StatusCanceled:
		return "canceled"
	case StatusStartFailed:
		return "could not start"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is what [Run] reports about one command.
type Result struct {
	Status Status
	// ExitCode is the exit code when Status is StatusExited, else -1.
	ExitCode int
	// Signal names the signal that killed the process ("SIGKILL",
	// "SIGSEGV"…), also when Run sent it; "" when it was not killed by a
	// signal (always "" on Windows).
	Signal string
	// StdoutBytes and StderrBytes count the bytes of each stream passed
	// to Config.Stdout and Config.Stderr: together at most MaxOutput.
	StdoutBytes, StderrBytes int64
	// MaxOutput is the output cap that was in effect, in bytes.
	MaxOutput int64
	// Truncated reports that output passed the cap and the command was killed.
	Truncated bool
	// Dropped counts the bytes read past the cap and discarded.
	Dropped int64
	// WriteErr is the first error Config.Stdout or Config.Stderr returned;
	// that sink got nothing more. nil when every write succeeded.
	WriteErr error
	// TimedOut reports that the timeout (or a deadline of ctx) expired and the
	// command was killed.
	TimedOut bool
	// Duration is the time from start until the command and its output pipes
	// were done.
	Duration time.Duration
	// Err says why the command could not start (wrapping *exec.Error,
	// *fs.PathError, exec.ErrDot or ErrNoCommand), or for StatusCanceled
	// the cause of the cancellation; nil otherwise.
	Err error
	// TempLeft is the command's private temporary directory when Run could
	// not remove it (a file that even its owner cannot delete); "" when it
	// was removed, which is the normal case.
	TempLeft string
}

// OK reports whether the command exited with code 0 and its output is whole.
func (r Result) OK() bool {
	return r.Status == StatusExited && r.ExitCode == 0 && !r.Truncated
}

// Causes passed to the run context's cancel function, so that the kill can
// be attributed.
var (
	errTimedOut  = errors.New("runner: timeout expired")
	errTruncated = errors.New("runner: output cap reached")
)

// Run runs argv[0] with the arguments argv[1:], without a shell, and waits
// for it and for everything it started in its process group.
//
// argv[0] is an absolute path, a bare name that Run resolves with
// exec.LookPath (using the caller's PATH, never one found relative to the
// current directory), or a relative path with a separator, which the
// operating system resolves against cfg.Dir. Standard input is the null
// device. Run returns when the command has ended and its output is read; it
// kills the command's process group when ctx is canceled, when cfg.Timeout
// expires and when output passes cfg.MaxOutput.
func Run(ctx context.Context, argv []string, cfg Config) Result {
	res := Result{ExitCode: -1}
	if len(argv) == 0 || argv[0] == "" {
		res.Status = StatusStartFailed
		res.Err = ErrNoCommand
		return res
	}
	if ctx.Err() != nil {
		res.Status = StatusCanceled
		res.Err = context.Cause(ctx)
		return res
	}
	s := NewScript(ctx, cfg)
	s.Pipeline([]Stage{{Argv: argv, Name: cfg.Name, Dir: cfg.Dir, Env: cfg.Env,
		Stdout: Stream{Kind: StreamStdout}, Stderr: Stream{Kind: StreamStderr}}})
	return s.Finish()
}
