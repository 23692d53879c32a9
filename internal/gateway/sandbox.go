package gateway

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/runner"
	"github.com/clada/clada/internal/sandbox"
)

// Confinement is how a command ran under the sandbox, for the report.
type Confinement struct {
	// Outcome says how the command was started; its Text is "" when no
	// sandbox was given (clada's own git commands), else "confined:
	// landlock v7 + seccomp, network off" or "unconfined: kernel has no
	// Landlock".
	sandbox.Outcome
	// Changes are what the command changed in .git and .clada, and what
	// the integrity check did about each; nil when nothing changed.
	Changes []sandbox.Change
	// Hint says that the confinement may be why the command failed, and
	// the way out, which is a person's; "" when it does not apply.
	Hint string
	// Refused are the destinations ("host:port") clada's proxy refused
	// the command, in the order first asked for.
	Refused []string
	// Asked are the questions the person was asked about hosts while the
	// command ran, "host:port answer" ("evil.example:443 no"), in order.
	Asked []string
	// Never are the destinations of Refused that were refused because
	// the person answered never for them with the command's pattern
	// (commands.toml [[network]] deny).
	Never []string
}

// hintTail is how much of the end of each stream RunVerdict keeps to see
// whether a failed command was refused by the sandbox.
const hintTail = 8 << 10

// RunVerdict runs an allowed (or approved) verdict's Exec as clada runs
// every command: in v.Dir, with clada's environment less POSIXLY_CORRECT
// plus v.Env, with cfg's timeout, output cap and output sinks, confined by
// sb to what v grants (sb nil: unconfined, as clada's own git commands
// run). Around it, the integrity check of .git and .clada: what the
// command changed there is undone where possible and returned. It is what
// clada run, clada exec and clada mcp run; v must come from this
// package's Decide or Check. hq (nil: nobody) is asked about a host the
// command wants to reach and was not granted (see [HostQuestions]).
func RunVerdict(ctx context.Context, v Verdict, cfg runner.Config, sb *sandbox.Sandbox, hq *HostQuestions) (runner.Result, Confinement) {
	cfg.Dir = v.Dir
	cfg.Env = commandEnv(os.Environ(), v.Env)
	if cfg.Name == "" && len(v.Exec) > 0 {
		// The program's messages name it by its name, not by the
		// absolute path clada resolved (the caller may set the name
		// as written, as a composition's parts have it).
		cfg.Name = filepath.Base(v.Exec[0])
	}
	if sb == nil {
		return runner.Run(ctx, v.Exec, cfg), Confinement{}
	}
	// .clada exists before the command starts, so the sandbox protects
	// it and the integrity check watches it.
	if err := approve.EnsureDir(sb.Root()); err != nil {
		return runner.Result{Status: runner.StatusStartFailed, ExitCode: -1, Err: err}, Confinement{}
	}
	var conf Confinement
	pause := &runner.Pause{}
	cfg.Pause = pause
	ns, err := startNetwork(ctx, v, sb, hq, pause)
	if err != nil {
		return runner.Result{Status: runner.StatusStartFailed, ExitCode: -1, Err: err}, Confinement{}
	}
	defer ns.close() // on a panic; close again is harmless
	cfg.Start = startConfined(ctx, v, sb, &conf.Outcome, ns)
	// Every TMPDIR in one directory, which the sandbox grants once.
	if root := sb.TempRoot(); root != "" {
		cfg.TempRoot = root
	}
	outTail, errTail := &tail{}, &tail{}
	cfg.Stdout, cfg.Stderr = tee(cfg.Stdout, outTail), tee(cfg.Stderr, errTail)
	snap := sandbox.TakeSnapshot(sb.Root())
	res := runner.Run(ctx, v.Exec, cfg)
	if res.Status != runner.StatusStartFailed {
		if conf.Confined {
			snap.GitOnly()
		}
		if v.Repository {
			snap.NewRepository()
		}
		conf.Changes = snap.Check()
	}
	conf.Hint = sandbox.Hint(conf.Outcome, res.Status == runner.StatusExited && res.ExitCode != 0, outTail.bytes(), errTail.bytes())
	conf.Refused = ns.close()
	conf.Asked, conf.Never = ns.questions()
	return res, conf
}

// startConfined is the runner's Start for v's command: started by sb
// with what v grants, its outcome stored in *o.
func startConfined(ctx context.Context, v Verdict, sb *sandbox.Sandbox, o *sandbox.Outcome, ns *netSession) func(*exec.Cmd, string) error {
	grants := sandbox.Command{Repository: v.Repository, Caches: cacheDirs(ctx, v, sb)}
	ns.apply(&grants)
	return func(cmd *exec.Cmd, tmp string) error {
		c := grants
		c.TmpDir = tmp
		ns.env(cmd)
		out, err := sb.Start(cmd, c)
		*o = out
		return err
	}
}

// SandboxPhrase says in a few words how v would run under sb, for the
// person asked to approve it: "sandboxed, no network", "sandboxed, with
// network", "unconfined"; "" when sb is nil.
func SandboxPhrase(sb *sandbox.Sandbox, v Verdict) string {
	return sandboxPhrase(sb, v, false)
}

// sandboxPhrase is SandboxPhrase where asking says that the person will
// be asked about a host the command was not granted while it runs:
// "sandboxed, network only to registry.npmjs.org (others asked)",
// "sandboxed, network only to hosts you let it reach as it runs".
func sandboxPhrase(sb *sandbox.Sandbox, v Verdict, asking bool) string {
	if sb == nil {
		return ""
	}
	// The person approving chooses the command: it runs as startNetwork
	// then starts it.
	open, proxied := netPlan(v, sb, true, asking)
	if hosts := v.Grants.Hosts; proxied && len(hosts) > 0 {
		if len(hosts) > 3 {
			hosts = append(hosts[:3:3], "…")
		}
		if asking {
			return "sandboxed, network only to " + strings.Join(hosts, ", ") + " (others asked)"
		}
		return "sandboxed, network only to " + strings.Join(hosts, ", ")
	}
	if proxied && asking {
		return "sandboxed, network only to hosts you let it reach as it runs"
	}
	return sb.Phrase(sandbox.Command{Network: open || (v.Grants.Network && !proxied), Repository: v.Repository})
}

// cacheDirs are the cache directories v's grants name, absolute:
// caches as written (~/PATH, $NAME[/PATH], /PATH; one naming an unset
// variable is skipped) and the lines its cache query prints.
func cacheDirs(ctx context.Context, v Verdict, sb *sandbox.Sandbox) []string {
	var out []string
	home, _ := os.UserHomeDir()
	for _, c := range v.Grants.Caches {
		if d := expandCache(c, home, os.Getenv); d != "" {
			out = append(out, d)
		}
	}
	// A program inside the project never names caches: its answer would
	// choose what it may write outside (~/.local/bin, say).
	if len(v.Grants.CacheQuery) > 0 && len(v.Exec) > 0 && filepath.IsAbs(v.Exec[0]) && !inside(sb.Root(), v.Exec[0]) {
		out = append(out, queryCaches(ctx, append([]string{v.Exec[0]}, v.Grants.CacheQuery...), v.Dir, sb)...)
	}
	return out
}

// inside reports whether path lies in dir, symbolic links resolved.
func inside(dir, path string) bool {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// expandCache is a caches entry as a spec writes it, made absolute; ""
// when it names an unset variable or the home directory is unknown.
func expandCache(c, home string, getenv func(string) string) string {
	switch {
	case strings.HasPrefix(c, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, c[2:])
	case strings.HasPrefix(c, "$"):
		name, rest, _ := strings.Cut(c[1:], "/")
		val := getenv(name)
		if val == "" || !filepath.IsAbs(val) {
			return ""
		}
		return filepath.Join(val, rest)
	case filepath.IsAbs(c):
		return filepath.Clean(c)
	}
	return ""
}

// cacheQueries remembers, per clada process, what each cache query
// printed: `go env GOCACHE GOMODCACHE` runs once, before the first go
// command.
var cacheQueries sync.Map // argv joined by NUL → []string

// queryCaches runs argv confined (no network, no caches) in dir and
// returns the absolute directories it prints, one per line.
func queryCaches(ctx context.Context, argv []string, dir string, sb *sandbox.Sandbox) []string {
	key := strings.Join(argv, "\x00")
	if v, ok := cacheQueries.Load(key); ok {
		return v.([]string)
	}
	var stdout bytes.Buffer
	res := runner.Run(ctx, argv, runner.Config{Dir: dir, Env: commandEnv(os.Environ(), nil), Timeout: 10 * time.Second,
		MaxOutput: 64 << 10, Stdout: &stdout, TempRoot: sb.TempRoot(),
		Start: func(cmd *exec.Cmd, tmp string) error {
			_, err := sb.Start(cmd, sandbox.Command{TmpDir: tmp})
			return err
		}})
	var dirs []string
	if res.OK() {
		for _, line := range strings.Split(stdout.String(), "\n") {
			if line = strings.TrimSpace(line); filepath.IsAbs(line) {
				dirs = append(dirs, filepath.Clean(line))
			}
		}
	}
	cacheQueries.Store(key, dirs)
	return dirs
}

// tail keeps the last hintTail bytes written to it.
type tail struct{ buf []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*hintTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-hintTail:]...)
	}
	return len(p), nil
}

func (t *tail) bytes() []byte {
	if len(t.buf) > hintTail {
		return t.buf[len(t.buf)-hintTail:]
	}
	return t.buf
}

// tee writes to t and then to w (nil: t alone); an error is w's, which
// the runner reports and after which it writes no more.
func tee(w io.Writer, t *tail) io.Writer {
	if w == nil {
		return t
	}
	return &teeWriter{w: w, t: t}
}

type teeWriter struct {
	w io.Writer
	t *tail
}

func (tw *teeWriter) Write(p []byte) (int, error) {
	_, _ = tw.t.Write(p)
	return tw.w.Write(p)
}
