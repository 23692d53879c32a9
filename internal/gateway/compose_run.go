package gateway

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
)

// PartRun is how one part of a composite ran.
type PartRun struct {
	Status PartStatus
	// Result is how a command that ran ended; a cd that failed has
	// StatusExited with code 1.
	Result runner.StageResult
	// Refused is, for PartRefused, its decision taken again just before
	// it would have started.
	Refused *Verdict
}

// PartStatus says what became of one part.
type PartStatus string

// The statuses of a part.
const (
	PartRan     PartStatus = "ran"
	PartSkipped PartStatus = "skipped" // `&&` or `||` said no
	PartNotRun  PartStatus = "not-run" // the composite stopped before it
	PartRefused PartStatus = "refused" // decided again before it started, and no longer allowed
)

// CompositeRun is what [Gateway.RunComposite] reports.
type CompositeRun struct {
	// Result is the whole's: its ExitCode is the status bash would give
	// (the last pipeline's, a pipeline's being its last command's),
	// unless the whole timed out, passed the output cap or was canceled.
	Result runner.Result
	Parts  []PartRun // one per Composite.Parts
	// Stopped names the part whose decision, taken again before it
	// started, no longer allowed it; "" when none.
	Stopped string
	Confinement
}

// RunComposite runs an allowed (or approved) composite as bash would run
// it, without a shell: each pipeline's commands started by clada with
// pipes between them, its redirections opened by clada, `cd` followed,
// `&&` and `||` short-circuiting, all under cfg's one timeout and one
// output cap, each command confined by sb to what its verdict grants,
// with the integrity check of .git and .clada around the whole. Before a
// pipeline starts, once anything ran or the directory is not the planned
// one, its parts are decided again; a part that is no longer allowed (a
// deny, or an ask that the person did not approve as it now stands)
// stops the composite there, with exit code 126.
//
// hq (nil: nobody) is asked about a host a part wants to reach and was
// not granted, as for [RunVerdict]; each part has its own grants, its own
// proxy and its own answers.
func (g *Gateway) RunComposite(ctx context.Context, c *Composite, cfg runner.Config, sb *sandbox.Sandbox, hq *HostQuestions) CompositeRun {
	run := CompositeRun{Parts: make([]PartRun, len(c.Parts))}
	for i := range run.Parts {
		run.Parts[i].Status = PartNotRun
	}
	var outTail, errTail tail
	cfg.Stdout, cfg.Stderr = tee(cfg.Stdout, &outTail), tee(cfg.Stderr, &errTail)
	var snap *sandbox.Snapshot
	if sb != nil {
		if err := approve.EnsureDir(sb.Root()); err != nil {
			run.Result = runner.Result{Status: runner.StatusStartFailed, ExitCode: -1, Err: err}
			return run
		}
		if root := sb.TempRoot(); root != "" {
			cfg.TempRoot = root
		}
		snap = sandbox.TakeSnapshot(sb.Root())
	}
	pause := &runner.Pause{}
	cfg.Pause = pause
	s := runner.NewScript(ctx, cfg)
	first := map[int]int{} // pipeline → index of its first part
	for i := len(c.Parts) - 1; i >= 0; i-- {
		first[c.Parts[i].Pipeline] = i
	}
	status, ran, repository := 0, false, false
	cur := ""
	if len(c.Parts) > 0 {
		cur = c.Parts[0].DirAttr
	}
	for pi, pl := range c.Script.Pipelines {
		idx := first[pi]
		if pl.Op == parser.And && status != 0 || pl.Op == parser.Or && status == 0 {
			for i := idx; i < len(c.Parts) && c.Parts[i].Pipeline == pi; i++ {
				run.Parts[i].Status = PartSkipped
			}
			continue
		}
		if s.Stopped() != nil {
			break
		}
		if pl.Cd != "" {
			run.Parts[idx].Status = PartRan
			next := joinDir(cur, pl.Cd)
			if v := g.decideCd(pl.Cd, next); v.Decision != Allow {
				s.Message(fmt.Sprintf("clada: cd: %s: %s\n", pl.Cd, cdError(v)))
				status = 1
			} else {
				cur, status = next, 0
			}
			run.Parts[idx].Result = runner.StageResult{Status: runner.StatusExited, ExitCode: status}
			continue
		}
		parts := c.Parts[idx : idx+len(pl.Cmds)]
		if ran || cur != parts[0].DirAttr {
			g.forget()
			var refused *Verdict
			for ci, cmd := range pl.Cmds {
				now := g.decidePart(pi, ci, cmd, cur)
				if !stillAllowed(parts[ci], now) {
					refused = &now.Verdict
					run.Parts[idx+ci].Status, run.Parts[idx+ci].Refused = PartRefused, refused
					run.Stopped = now.Label(idx + ci)
					break
				}
				parts[ci] = now
			}
			if refused != nil {
				s.Message(fmt.Sprintf("clada: not run: %s is no longer allowed now that the commands before it ran (rule %s): %s\n",
					run.Stopped, refused.Rule, refused.Reason))
				status = 126
				break
			}
		}
		stages, files, nets, err := g.stages(ctx, pl, parts, sb, &run.Confinement.Outcome, hq, pause)
		var res []runner.StageResult
		if err == nil {
			res = s.Pipeline(stages)
		}
		for _, f := range files {
			f.Close()
		}
		for _, ns := range nets {
			run.Confinement.Refused = append(run.Confinement.Refused, ns.close()...)
			asked, never := ns.questions()
			run.Confinement.Asked = append(run.Confinement.Asked, asked...)
			run.Confinement.Never = append(run.Confinement.Never, never...)
		}
		if err != nil {
			run.Stopped = pl.Text
			s.Message(fmt.Sprintf("clada: not run: could not start the network proxy for `%s`: %v\n", pl.Text, err))
			status = 126
			break
		}
		for ci := range parts {
			run.Parts[idx+ci].Status, run.Parts[idx+ci].Result = PartRan, res[ci]
			repository = repository || parts[ci].Repository
		}
		status = res[len(res)-1].Code()
		ran = true
	}
	run.Result = s.Finish()
	switch run.Result.Status {
	case runner.StatusTimedOut, runner.StatusTruncated, runner.StatusCanceled:
	default:
		run.Result.Status, run.Result.ExitCode, run.Result.Err = runner.StatusExited, status, nil
		run.Result.Signal = ""
	}
	if snap != nil && ran {
		if run.Confinement.Confined {
			snap.GitOnly()
		}
		if repository {
			snap.NewRepository()
		}
		run.Confinement.Changes = snap.Check()
	}
	if sb != nil {
		run.Confinement.Hint = sandbox.Hint(run.Confinement.Outcome, !run.Result.OK() && run.Result.Status == runner.StatusExited,
			outTail.bytes(), errTail.bytes())
	}
	return run
}

// cdError is the reason a cd fails at run time, as a shell says it.
func cdError(v Verdict) string {
	if v.Rule == rules.DirNotFound {
		return "No such file or directory"
	}
	return v.Reason
}

// stillAllowed reports whether a part decided again just before it
// starts may run: allowed now, or asked exactly as it was approved.
func stillAllowed(planned, now *Part) bool {
	switch now.Decision {
	case Allow:
		return true
	case Ask:
		return planned.Decision == Ask && slices.Equal(planned.Argv, now.Argv) && planned.DirAttr == now.DirAttr
	}
	return false
}

// stages builds the runner's stages of one pipeline, opening its
// redirections' files; a file that cannot be opened makes its command
// fail with status 1, as in bash, and the rest of the pipeline runs.
// The caller closes the files.
func (g *Gateway) stages(ctx context.Context, pl *parser.Pipeline, parts []*Part, sb *sandbox.Sandbox, o *sandbox.Outcome, hq *HostQuestions, pause *runner.Pause) ([]runner.Stage, []*os.File, []*netSession, error) {
	var files []*os.File
	var nets []*netSession
	stages := make([]runner.Stage, len(pl.Cmds))
	for ci, cmd := range pl.Cmds {
		p := parts[ci]
		st := runner.Stage{Argv: p.Exec, Name: p.Argv[0], Dir: p.Dir, Env: commandEnv(os.Environ(), p.Env)}
		if sb != nil {
			ns, err := startNetwork(ctx, p.Verdict, sb, hq, pause)
			if err != nil {
				return nil, files, nets, err
			}
			nets = append(nets, ns)
			st.Start = startConfined(ctx, p.Verdict, sb, o, ns)
		}
		fds := [3]runner.Stream{{Kind: runner.StreamNull}, {Kind: runner.StreamStdout}, {Kind: runner.StreamStderr}}
		if ci > 0 {
			fds[0] = runner.Stream{Kind: runner.StreamPipe}
		}
		if ci < len(pl.Cmds)-1 {
			fds[1] = runner.Stream{Kind: runner.StreamPipe}
		}
		fileAt := 0
		for _, r := range cmd.Redirs {
			switch r.Kind {
			case parser.RedirDup:
				fds[r.Fd] = fds[r.To]
				continue
			case parser.RedirData:
				fds[0] = runner.Stream{Kind: runner.StreamData, Data: r.Data}
				continue
			}
			rf := p.Files[fileAt]
			fileAt++
			x := runner.Stream{Kind: runner.StreamNull}
			if rf.Path != "" {
				f, err := openRedir(rf.Path, r.Kind)
				if err != nil {
					st.Refused = fmt.Sprintf("clada: %s: %s\n", r.Path, openError(err))
					break
				}
				files = append(files, f)
				x = runner.Stream{Kind: runner.StreamFile, File: f}
			}
			fds[r.Fd] = x
			if r.Both {
				fds[2] = x
			}
		}
		if cmd.PipeStderr {
			fds[2] = fds[1]
		}
		st.Stdin, st.Stdout, st.Stderr = fds[0], fds[1], fds[2]
		stages[ci] = st
	}
	return stages, files, nets, nil
}

// openRedir opens a redirection's file as bash does, without following
// a symbolic link in its last component (it was resolved when decided).
// clada opens it itself, outside the sandbox, so a file written is
// checked again once open, before anything is written or truncated: a
// regular file that has gained a second hard link since it was decided
// (the other link may be outside the project, or in .git/) is refused
// (errHardLinked).
func openRedir(path string, k parser.RedirKind) (*os.File, error) {
	if k == parser.RedirRead {
		return os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	}
	flags := os.O_WRONLY | os.O_CREATE | noFollow
	if k == parser.RedirAppend {
		flags |= os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1 {
		err = errHardLinked{linkCount(fi)}
	}
	if err == nil && k != parser.RedirAppend {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errHardLinked refuses a redirection's file that has more than one hard
// link when clada opens it.
type errHardLinked struct{ n uint64 }

func (e errHardLinked) Error() string {
	return fmt.Sprintf("refused (rule %s): it now has %d hard links, and writing it would change every link, which may be in .git/, .clada/ or outside the project; write a new file instead",
		rules.ProtectedPath, e.n)
}

// openError says why a file could not be opened as a shell says it.
func openError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := err.Error()
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}
