package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Stream says where one standard stream of a [Stage] goes.
type Stream struct {
	Kind StreamKind
	// File is the open file of a StreamFile: the caller opened it (a
	// redirection's target) and closes it after [Script.Pipeline].
	File *os.File
	// Data is what a StreamData stdin reads (a here-document).
	Data string
}

// StreamKind is the kind of a [Stream].
type StreamKind int

// The kinds of [Stream]. The zero kind is the null device.
const (
	StreamNull   StreamKind = iota // the null device
	StreamStdout                   // the script's stdout, passed to Config.Stdout
	StreamStderr                   // the script's stderr, passed to Config.Stderr
	StreamPipe                     // the pipe to the next stage (stdout, stderr) or from the previous one (stdin)
	StreamFile                     // Stream.File
	StreamData                     // stdin only: Stream.Data
)

// Stage is one command of a pipeline: its argv, where it runs and where
// its standard streams go.
type Stage struct {
	// Argv is the command, argv[0] resolved as [Run] resolves it.
	Argv []string
	// Name is what the program sees as its own name (argv[0]): the name
	// the command was written with, as a shell passes it, so that its
	// messages say `cat: x: No such file`; "" means Argv[0].
	Name string
	// Dir and Env are as in [Config]; Env nil is the caller's environment.
	Dir string
	Env []string
	// Start starts the prepared command, as [Config.Start]; nil is
	// the script's Config.Start.
	Start func(cmd *exec.Cmd, tmpDir string) error
	// Refused, when set, is written to the script's stderr in place of
	// starting the stage, which then ends with status 1 (a redirection
	// whose file could not be opened, as in a shell).
	Refused string
	// Stdin, Stdout and Stderr say where the standard streams go. A
	// StreamPipe stdin reads the previous stage's StreamPipe outputs.
	Stdin, Stdout, Stderr Stream
}

// StageResult is how one stage ended.
type StageResult struct {
	Status   Status // StatusExited, StatusSignaled, StatusStartFailed; the script's kill statuses when it was killed
	ExitCode int    // when StatusExited, else -1
	Signal   string // as Result.Signal
	Err      error  // why it could not start
}

// Code is the stage's status as bash reports it: the exit code, 128+N
// for a death by signal N, 127 when it could not start.
func (r StageResult) Code() int {
	switch {
	case r.Status == StatusExited:
		return r.ExitCode
	case r.Status == StatusStartFailed:
		return 127
	case r.Signal != "":
		if n := SignalNumber(r.Signal); n > 0 {
			return 128 + n
		}
	}
	return 128 + 9 // killed by clada: SIGKILL
}

// Script runs pipelines one after another with one timeout, one output
// cap and one pair of output sinks for them all: a composition of
// commands (`a | b && c`) as clada runs it, without a shell. [Run] is a
// script of one command.
type Script struct {
	ctx       context.Context
	runCtx    context.Context
	cancel    context.CancelCauseFunc
	cfg       Config
	waitDelay time.Duration
	tmu       sync.Mutex // guards timer, which expire resets, and finished
	timer     *time.Timer
	finished  bool // Finish stopped the timer: expire sets it no more
	start     time.Time

	outR, outW, errR, errW *os.File
	c                      capture
	done                   chan struct{}
	outSink, errSink       sink

	mu        sync.Mutex
	killCause error // the cancellation cause when the script first killed a live stage
	last      StageResult
	ran       bool
	tempLeft  string
	setupErr  error
}

// NewScript prepares a script under ctx and cfg (cfg.Dir and cfg.Env are
// each stage's own; Timeout, MaxOutput, WaitDelay, TempRoot, Stdout,
// Stderr and Start apply to the whole). The timeout runs from here.
// [Script.Finish] must be called.
func NewScript(ctx context.Context, cfg Config) *Script {
	s := &Script{ctx: ctx, cfg: cfg, done: make(chan struct{}, 2)}
	timeout := cmp.Or(max(cfg.Timeout, 0), DefaultTimeout)
	maxOutput := cmp.Or(max(cfg.MaxOutput, 0), DefaultMaxOutput)
	s.cfg.MaxOutput = maxOutput
	s.waitDelay = cmp.Or(max(cfg.WaitDelay, 0), DefaultWaitDelay)
	s.runCtx, s.cancel = context.WithCancelCause(ctx)
	s.start = time.Now()
	var err error
	if s.outR, s.outW, err = os.Pipe(); err != nil {
		s.setupErr = err
		return s
	}
	if s.errR, s.errW, err = os.Pipe(); err != nil {
		s.outR.Close()
		s.outW.Close()
		s.outR, s.outW = nil, nil
		s.setupErr = err
		return s
	}
	s.tmu.Lock()
	s.timer = time.AfterFunc(timeout, func() { s.expire(timeout) })
	s.tmu.Unlock()
	s.c = capture{left: maxOutput, full: func() { s.cancel(errTruncated) }}
	s.outSink, s.errSink = sink{w: cfg.Stdout}, sink{w: cfg.Stderr}
	go s.c.drain(s.outR, &s.outSink, s.done)
	go s.c.drain(s.errR, &s.errSink, s.done)
	return s
}

// pauseRecheck is how often the timeout's timer looks again while the
// clock stands still ([Config.Pause] held) or is about to run out.
const pauseRecheck = 100 * time.Millisecond

// expire is the timeout's timer: it stops the script once timeout has
// passed since the start, less the time [Config.Pause] was held;
// otherwise it sets itself again for the time that is left.
func (s *Script) expire(timeout time.Duration) {
	if s.cfg.Pause != nil {
		held, holding := s.cfg.Pause.Held()
		if left := timeout - (time.Since(s.start) - held); left > 0 || holding {
			if holding {
				left = max(left, pauseRecheck)
			}
			s.tmu.Lock()
			if !s.finished {
				s.timer.Reset(left)
			}
			s.tmu.Unlock()
			return
		}
	}
	s.cancel(errTimedOut)
}

// Stopped reports why no further pipeline may start: the timeout, the
// output cap or a cancellation; nil while the script may go on.
func (s *Script) Stopped() error {
	if s.runCtx.Err() != nil {
		return context.Cause(s.runCtx)
	}
	return nil
}

// Message writes clada's own line to the script's stderr (a `cd` that
// failed), counted in the output cap like the commands' output.
func (s *Script) Message(text string) {
	if s.errW != nil {
		_, _ = s.errW.WriteString(text)
	}
}

// Pipeline starts every stage, connected by pipes, and waits for all of
// them and for what they left in their process groups. It returns each
// stage's result; a stage that could not start has StatusStartFailed and
// the others run as a shell runs them (reading EOF, or writing into a
// closed pipe). Nothing starts once the script was stopped (see
// [Script.Stopped]); the results then say so.
func (s *Script) Pipeline(stages []Stage) []StageResult {
	res := make([]StageResult, len(stages))
	for i := range res {
		res[i].ExitCode = -1
	}
	if s.setupErr != nil {
		for i := range res {
			res[i].Status, res[i].Err = StatusStartFailed, s.setupErr
		}
		s.setLast(res[len(res)-1])
		return res
	}
	if err := s.Stopped(); err != nil {
		for i := range res {
			res[i].Status = s.stopStatus(err)
		}
		return res
	}
	type running struct {
		cmd  *exec.Cmd
		g    group
		tmp  *tempDir
		reap *reaped
	}
	procs := make([]*running, len(stages))
	var prevRead *os.File // the read end of the pipe from the previous stage
	for i, st := range stages {
		var pipeR, pipeW *os.File
		if i < len(stages)-1 && (st.Stdout.Kind == StreamPipe || st.Stderr.Kind == StreamPipe) {
			var err error
			if pipeR, pipeW, err = os.Pipe(); err != nil {
				res[i] = StageResult{Status: StatusStartFailed, ExitCode: -1, Err: err}
				continue
			}
		}
		if st.Refused != "" {
			s.Message(st.Refused)
			res[i] = StageResult{Status: StatusExited, ExitCode: 1}
			if prevRead != nil {
				prevRead.Close()
			}
			prevRead = pipeR
			if pipeW != nil {
				pipeW.Close()
			}
			continue
		}
		stdinPipe := prevRead
		prevRead = pipeR
		r, err := s.prepare(st, stdinPipe, pipeW)
		if err != nil && stdinPipe != nil {
			stdinPipe.Close()
		}
		if err != nil {
			res[i] = StageResult{Status: StatusStartFailed, ExitCode: -1, Err: fmt.Errorf("starting %q: %w", st.Argv[0], err)}
			if pipeW != nil {
				pipeW.Close()
			}
			continue
		}
		procs[i] = &running{cmd: r.cmd, g: r.g, tmp: r.tmp}
		start := st.Start
		if start == nil {
			start = s.cfg.Start
		}
		registered := reapStart()
		if start != nil {
			err = start(r.cmd, r.tmp.path)
		} else {
			err = r.cmd.Start()
		}
		if err == nil {
			procs[i].reap = registered(r.cmd.Process.Pid, r.tmp.path)
		} else {
			registered(0, "")
		}
		// The child holds its own copies; the next stage sees EOF once
		// this one (and everything it started) is done, and this one
		// gets SIGPIPE once the previous one is.
		if pipeW != nil {
			pipeW.Close()
		}
		if stdinPipe != nil {
			stdinPipe.Close()
		}
		if err != nil {
			r.g.close()
			s.removeTemp(r.tmp)
			procs[i] = nil
			res[i] = StageResult{Status: StatusStartFailed, ExitCode: -1, Err: fmt.Errorf("starting %q: %w", st.Argv[0], err)}
			if s.ctx.Err() != nil {
				res[i].Status, res[i].Err = StatusCanceled, context.Cause(s.ctx)
			}
			continue
		}
		r.g.started(r.cmd.Process)
		s.mu.Lock()
		s.ran = true
		s.mu.Unlock()
	}
	if prevRead != nil {
		prevRead.Close()
	}
	for i, p := range procs {
		if p == nil {
			continue
		}
		_ = p.cmd.Wait() // the outcome is read from ProcessState
		p.g.killLeftovers(p.cmd.Process)
		reapEnd(p.reap) // what left the group
		p.g.close()
		s.removeTemp(p.tmp)
		res[i] = s.stageResult(p.cmd.ProcessState)
	}
	s.setLast(res[len(res)-1])
	return res
}

// prepared is a stage's command, ready to start.
type prepared struct {
	cmd *exec.Cmd
	g   group
	tmp *tempDir
}

// prepare builds the command of st, with prevRead as a StreamPipe stdin
// and pipeW as its StreamPipe outputs.
func (s *Script) prepare(st Stage, prevRead, pipeW *os.File) (*prepared, error) {
	if len(st.Argv) == 0 || st.Argv[0] == "" {
		return nil, ErrNoCommand
	}
	cmd := exec.CommandContext(s.runCtx, st.Argv[0], st.Argv[1:]...)
	if cmd.Err != nil { // not found in PATH, or exec.ErrDot
		return nil, cmd.Err
	}
	if st.Name != "" {
		cmd.Args[0] = st.Name
	}
	cmd.Dir = st.Dir
	tmp, err := newTempDir(s.cfg.TempRoot)
	if err != nil {
		return nil, fmt.Errorf("making its temporary directory: %w", err)
	}
	if st.Env != nil {
		cmd.Env = tmp.env(st.Env)
	} else {
		cmd.Env = tmp.env(cmd.Environ())
	}
	out := func(x Stream) *os.File {
		switch x.Kind {
		case StreamStdout:
			return s.outW
		case StreamStderr:
			return s.errW
		case StreamPipe:
			return pipeW
		case StreamFile:
			return x.File
		}
		return nil // os/exec: the null device
	}
	// A nil *os.File in an io.Writer would be a closed descriptor,
	// not the null device: only a real file is assigned.
	if f := out(st.Stdout); f != nil {
		cmd.Stdout = f
	}
	if f := out(st.Stderr); f != nil {
		cmd.Stderr = f
	}
	switch st.Stdin.Kind {
	case StreamPipe:
		if prevRead != nil {
			cmd.Stdin = prevRead
		}
	case StreamFile:
		cmd.Stdin = st.Stdin.File
	case StreamData:
		cmd.Stdin = strings.NewReader(st.Stdin.Data)
	}
	p := &prepared{cmd: cmd, tmp: tmp}
	p.g.prepare(cmd)
	cmd.Cancel = func() error {
		err := p.g.kill(cmd.Process)
		if !errors.Is(err, os.ErrProcessDone) { // else it ended on its own
			s.mu.Lock()
			if s.killCause == nil {
				s.killCause = context.Cause(s.runCtx)
			}
			s.mu.Unlock()
		}
		return err
	}
	cmd.WaitDelay = s.waitDelay
	return p, nil
}

func (s *Script) removeTemp(t *tempDir) {
	if err := t.remove(); err != nil {
		s.mu.Lock()
		s.tempLeft = t.path
		s.mu.Unlock()
	}
}

// stageResult is how a waited-for stage ended, with the script's kill
// cause when the script killed it.
func (s *Script) stageResult(state *os.ProcessState) StageResult {
	r := StageResult{ExitCode: -1}
	if state != nil {
		r.Signal = signalName(state)
	}
	s.mu.Lock()
	cause := s.killCause
	s.mu.Unlock()
	switch {
	case cause != nil && r.Signal != "" || cause != nil && state == nil:
		r.Status = s.stopStatus(cause)
	case state != nil && r.Signal != "":
		r.Status = StatusSignaled
	case state != nil:
		r.Status = StatusExited
		r.ExitCode = state.ExitCode()
	default:
		r.Status = StatusSignaled
	}
	return r
}

// stopStatus is the status a stopping cause gives.
func (s *Script) stopStatus(cause error) Status {
	switch {
	case errors.Is(cause, errTruncated):
		return StatusTruncated
	case errors.Is(cause, errTimedOut) || errors.Is(cause, context.DeadlineExceeded):
		return StatusTimedOut
	}
	return StatusCanceled
}

func (s *Script) setLast(r StageResult) {
	s.mu.Lock()
	s.last = r
	s.mu.Unlock()
}

// Finish waits for the output to be read and returns the script's
// result: how its last stage ended, unless the script was stopped (timed
// out, truncated, canceled), which wins. It is what [Run] returns for a
// script of one command.
func (s *Script) Finish() (res Result) {
	res = Result{ExitCode: -1, MaxOutput: s.cfg.MaxOutput}
	defer s.cancel(nil)
	if s.setupErr != nil {
		res.Status, res.Err = StatusStartFailed, s.setupErr
		return res
	}
	s.tmu.Lock()
	s.timer.Stop()
	s.finished = true
	s.tmu.Unlock()
	// Only clada's own ends are left open: close them, so the drains end
	// once every process holding the pipes is gone.
	s.outW.Close()
	s.errW.Close()
	pending := 2
	delay := time.NewTimer(s.waitDelay)
	canceled := s.ctx.Done()
	for pending > 0 {
		select {
		case <-s.done:
			pending--
			continue
		case <-canceled:
			// Ctrl-C: read what the killed groups left in the pipes, but
			// do not wait the whole WaitDelay for a process outside them.
			canceled = nil
			if s.waitDelay > cancelGrace {
				delay.Reset(cancelGrace)
			}
			continue
		case <-delay.C:
		}
		// Something outside the groups still holds the pipes: stop
		// reading, as exec.Cmd.WaitDelay does.
		s.outR.Close()
		s.errR.Close()
		for ; pending > 0; pending-- {
			<-s.done
		}
	}
	delay.Stop()
	s.outR.Close()
	s.errR.Close()
	res.Duration = time.Since(s.start)

	s.c.mu.Lock()
	res.Truncated, res.Dropped = s.c.truncated, s.c.dropped
	s.c.mu.Unlock()
	res.StdoutBytes, res.StderrBytes = s.outSink.written, s.errSink.written
	res.WriteErr = cmp.Or(s.outSink.err, s.errSink.err)

	s.mu.Lock()
	last, cause, ran := s.last, s.killCause, s.ran
	res.TempLeft = s.tempLeft
	s.mu.Unlock()
	res.Signal = last.Signal
	switch {
	case cause != nil:
		res.Status = s.stopStatus(cause)
		res.TimedOut = res.Status == StatusTimedOut
		if res.Status == StatusCanceled {
			res.Err = cause
		}
	case !ran && s.ctx.Err() != nil:
		res.Status, res.Err = StatusCanceled, context.Cause(s.ctx)
	case res.Truncated:
		// The cap was passed after the last command had exited (output
		// still in the pipe, or from a leftover process).
		res.Status = StatusTruncated
	default:
		res.Status, res.ExitCode, res.Err = last.Status, last.ExitCode, last.Err
		if res.Status == 0 {
			res.Status = StatusSignaled // no stage ran; should not happen
		}
	}
	return res
}
