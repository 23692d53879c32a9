package mcpserver

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Limits of the job table.
const (
	// keepFinished is how many finished background jobs keep their
	// result for the output tool; the newest win.
	keepFinished = 20
	// maxRunning bounds the commands running at once, foreground and
	// background, so a model cannot start processes without end.
	maxRunning = 32
)

// The job statuses the output and kill tools report (a contract, like
// the tool names).
const (
	statusRunning  = "running"
	statusExited   = "exited"
	statusKilled   = "killed"
	statusTimedOut = "timed out"
)

// Causes of a job's cancellation, so its report says who stopped it.
var (
	errKilled   = errors.New("by the kill tool")
	errShutdown = errors.New("because the MCP client disconnected or clada mcp was stopped")
	errCanceled = errors.New("because the client cancelled the call")
)

// errTooMany and errClosed refuse a new job.
var (
	errTooMany = errors.New("too many commands are running")
	errClosed  = errors.New("clada mcp is shutting down")
)

// job is one command started by the run tool. Every run is a job while
// its command runs, so that shutdown reaches it; only one still running
// after background_after is shown to the model (and kept once finished).
type job struct {
	id      int
	started time.Time
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed when the command has ended and final is set

	// running is what the reports show while the command runs; it is
	// fixed before the job starts and read-only afterwards.
	running runningView

	// final is set once, before done is closed.
	final *finished
	// background is set, under jobs.mu, when the run tool returned
	// before the command ended.
	background bool
}

// finished is a job's result, rendered when the command ended (the
// gateway releases the captured output once it is reported).
type finished struct {
	status   string         // one of the job statuses
	exitCode *int           // when it exited
	text     string         // the text block report
	block    map[string]any // the JSON block report
	failed   bool           // denied, not approved, failed or timed out
	ended    time.Time
}

// jobs is the job table of one server. It is safe for concurrent use.
type jobs struct {
	ctx context.Context // parent of every job; never cancelled itself

	mu       sync.Mutex
	next     int
	running  map[int]*job
	finished []*job // finished background jobs, oldest first
	closed   bool
	wg       sync.WaitGroup
}

func newJobs() *jobs {
	return &jobs{ctx: context.Background(), running: map[int]*job{}}
}

// start runs work as a new job. work must return once its context is
// cancelled (the runner kills the process group then) and returns the
// job's result.
func (js *jobs) start(view runningView, work func(ctx context.Context) *finished) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.closed {
		return nil, errClosed
	}
	if len(js.running) >= maxRunning {
		return nil, errTooMany
	}
	js.next++
	ctx, cancel := context.WithCancelCause(js.ctx)
	j := &job{id: js.next, started: time.Now(), cancel: cancel, done: make(chan struct{}), running: view}
	js.running[j.id] = j
	js.wg.Add(1)
	go func() {
		defer js.wg.Done()
		f := work(ctx)
		cancel(nil)
		js.mu.Lock()
		defer js.mu.Unlock()
		j.final = f
		close(j.done)
		delete(js.running, j.id)
		if j.background {
			js.finished = append(js.finished, j)
			if n := len(js.finished) - keepFinished; n > 0 {
				js.finished = append(js.finished[:0:0], js.finished[n:]...)
			}
		}
	}()
	return j, nil
}

// toBackground marks j as a background job, unless it has ended; it
// reports whether it did.
func (js *jobs) toBackground(j *job) bool {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j.final != nil {
		return false
	}
	j.background = true
	return true
}

// get returns the background job with id: running, or finished and
// still kept.
func (js *jobs) get(id int) *job {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j := js.running[id]; j != nil && j.background {
		return j
	}
	for _, j := range js.finished {
		if j.id == id {
			return j
		}
	}
	return nil
}

// view returns j's result when it has ended, else nil.
func (js *jobs) result(j *job) *finished {
	js.mu.Lock()
	defer js.mu.Unlock()
	return j.final
}

// stop cancels j with cause and waits for its command to end.
func (js *jobs) stop(j *job, cause error) *finished {
	j.cancel(cause)
	<-j.done
	return js.result(j)
}

// close refuses new jobs, stops every running one and waits until all
// their commands have ended. The runner kills each command's process
// group when its context is cancelled.
func (js *jobs) close() {
	js.mu.Lock()
	js.closed = true
	for _, j := range js.running {
		j.cancel(errShutdown)
	}
	js.mu.Unlock()
	js.wg.Wait()
}
