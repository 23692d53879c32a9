package gateway

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clada/clada/internal/gitstate"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/specs"
)

// gitTimeout bounds each git command that reads the work tree's state.
const gitTimeout = 30 * time.Second

// gitState returns what git can restore, read once per run and again
// after a command ran (forget drops it), and only when a command that
// destroys an existing file is decided: the dry run of commands that
// destroy nothing never starts git.
func (g *Gateway) gitState() *gitstate.State {
	if g.git == nil {
		g.git = gitstate.Read(g.runGit)
	}
	return g.git
}

// runGit runs git as clada runs every git command: hardened, pinned to
// the project's own repository, without a shell, with a time and output
// limit.
func (g *Gateway) runGit(args ...string) ([]byte, error) {
	prog, err := g.opts.Specs.LookPath("git")
	if err != nil {
		return nil, err
	}
	ex, env := specs.Command(prog, append([]string{"git"}, args...), g.Root())
	var stdout, stderr bytes.Buffer
	res := runner.Run(context.Background(), ex, runner.Config{
		Dir: g.Root(), Env: commandEnv(os.Environ(), env), Timeout: gitTimeout, MaxOutput: 256 << 20,
		Stdout: &stdout, Stderr: &stderr,
	})
	if !res.OK() {
		return nil, &gitFailure{res, stderr.String()}
	}
	return stdout.Bytes(), nil
}

// gitFailure is a git command that did not exit 0 with its whole output.
type gitFailure struct {
	res    runner.Result
	stderr string
}

func (e *gitFailure) Error() string {
	switch {
	case e.res.Err != nil:
		return e.res.Err.Error()
	case e.res.TimedOut:
		return fmt.Sprintf("no answer within %s", gitTimeout)
	case e.res.Truncated:
		return "its output is too large"
	}
	msg := strings.TrimSpace(e.stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Sprintf("exit %d: %s", e.res.ExitCode, msg)
}

// ExitCode is git's exit code, -1 when it did not exit.
func (e *gitFailure) ExitCode() int { return e.res.ExitCode }

// restorable applies the deleting-and-overwriting rule to v, an allow or
// ask for argv whose command destroys ds: the allow stands only when git
// can restore all of them (each file tracked and unmodified, nothing
// untracked, ignored or changed under a removed directory); otherwise the
// command is asked, and the question names what cannot be restored.
func (g *Gateway) restorable(v Verdict, argv []string, ds []specs.Destroyed) Verdict {
	if len(ds) == 0 || v.Decision == Deny {
		return v
	}
	st := g.gitState()
	root := g.Root()
	var lost []string
	word := ""
	seen := map[string]bool{}
	for _, d := range ds {
		rel, err := filepath.Rel(root, d.Path)
		if err != nil {
			rel = d.Path
		}
		for _, l := range st.Lost(filepath.ToSlash(rel), d.Tree) {
			if !seen[l.Path] {
				seen[l.Path] = true
				lost = append(lost, l.String())
				v.Lost = append(v.Lost, l.Path)
			}
			if word == "" {
				word = d.Arg
			}
		}
	}
	if len(lost) == 0 {
		if v.Decision == Allow {
			v.Reason += "; git can restore everything it deletes or replaces"
		}
		return v
	}
	const show = 5
	list := strings.Join(lost[:min(len(lost), show)], ", ")
	if len(lost) > show {
		list += fmt.Sprintf(" and %d more", len(lost)-show)
	}
	why := fmt.Sprintf("%s deletes or replaces what git cannot restore: %s", argv[0], list)
	if st.Failed() != nil {
		why = fmt.Sprintf("%s deletes or replaces files, and git cannot restore them: %v", argv[0], st.Failed())
	}
	if v.Decision == Ask {
		v.Why += "; " + why
		v.Reason = v.Why + ", so the person must approve it"
		return v
	}
	v.Decision, v.Rule, v.Word, v.Why = Ask, rules.NotRestorable, word, why
	v.Reason = why + ", so the person must approve it"
	v.Advice = "commit the files first (or leave them alone), then the command runs without asking; otherwise wait for the person to approve"
	return v
}
