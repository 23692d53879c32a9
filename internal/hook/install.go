package hook

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/atomicfile"
	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/specs"
)

// settings says where an agent keeps its command hooks and what clada's
// entry there looks like (each agent's file documents its format).
type settings struct {
	project string // the file, relative to the project root
	user    string // the file, relative to the home directory
	event   string // the key under "hooks": a list of entries
	// entry is what install appends to the list for the hook command
	// line cmd. When grouped, an entry is {matcher, hooks: [{command …}]}
	// and clada's hook is found inside; else the entry itself has the
	// command.
	entry   func(cmd string) any
	grouped bool
	// top are members a new file starts with, before "hooks".
	top []topMember
	// current reports whether clada's hook h (in its group, when
	// grouped) is in the form install writes today; nil means any form
	// is. An older form is replaced by install.
	current func(group, h *node) bool
	// startDir: the agent reads the project's settings file only in the
	// directory it starts in, not in the directories above it, so a
	// project install run from a subdirectory installs there too.
	startDir bool
}

// ReadsStartDir reports whether agent reads the project's settings file
// only in the directory it was started in (Claude Code 2.1.332, Gemini
// CLI: not in the directories above it), so that a project install must
// also go where the person starts it.
func ReadsStartDir(name string) bool {
	a, _ := agentNamed(name)
	return a.startDir
}

// WhereRead says, for the person, where agent reads the settings file
// install writes.
func WhereRead(name string) string {
	s, ok := agentNamed(name)
	if !ok {
		return ""
	}
	if s.startDir {
		return fmt.Sprintf("%s reads %s only in the directory it starts in, and ~/%s for every directory", s.title, s.project, s.user)
	}
	return fmt.Sprintf("%s reads %s of the project, and ~/%s for every project", s.title, s.project, s.user)
}

type topMember struct {
	key string
	val any
}

// agent is one agent clada has a hook for.
type agent struct {
	name  string // the name clada hook takes: "claude-code"
	title string // the agent's name as people know it: "Claude Code"
	// answer answers the agent's pre-command hook (clada hook NAME).
	answer func(in io.Reader, out, stderr io.Writer, env Env) int
	// envMark is the NAME=value the agent sets in the environment of
	// the commands its shell runs; "" when it sets none clada knows.
	envMark string
	settings
}

// agents is clada's one table of agents, in the order clada hook's help
// lists them: the hook that answers each, the settings file install
// changes, and how its commands are recognised.
var agents = []agent{
	{name: "claude-code", title: "Claude Code", answer: ClaudeCode, envMark: "CLAUDECODE=1", settings: settings{
		project: ".claude/settings.json", user: ".claude/settings.json", event: "PreToolUse", grouped: true,
		entry: func(cmd string) any {
			// Bash and Monitor: Claude Code's Monitor tool runs a shell
			// command too, and honours a hook's answer only under its
			// own name. onFailure "block" (Claude Code ≥ 2.1.295): a
			// clada that cannot start or answer blocks the command
			// instead of letting it through.
			return claudeGroup{Matcher: claudeMatcher, Hooks: []claudeHook{{Type: "command", Command: cmd, Timeout: 30, OnFailure: "block"}}}
		},
		current: func(group, h *node) bool {
			m, f := group.get("matcher"), h.get("onFailure")
			return m != nil && m.kind == kString && m.str == claudeMatcher && f != nil && f.kind == kString && f.str == "block"
		},
		startDir: true,
	}},
	{name: "gemini", title: "Gemini CLI", answer: Gemini, envMark: "GEMINI_CLI=1", settings: settings{
		project: ".gemini/settings.json", user: ".gemini/settings.json", event: "BeforeTool", grouped: true,
		entry: func(cmd string) any {
			return geminiGroup{Matcher: "run_shell_command", Hooks: []geminiHook{{Name: "clada", Type: "command", Command: cmd, Timeout: 30000}}}
		},
		startDir: true,
	}},
	{name: "cursor", title: "Cursor", answer: Cursor, settings: settings{
		project: ".cursor/hooks.json", user: ".cursor/hooks.json", event: "beforeShellExecution",
		entry: func(cmd string) any { return cursorHook{Command: cmd} },
		top:   []topMember{{"version", 1}},
	}},
}

// agentNamed returns the agent clada hook calls name; ok is false for an
// agent clada has no hook for.
func agentNamed(name string) (a agent, ok bool) {
	for _, a := range agents {
		if a.name == name {
			return a, true
		}
	}
	return agent{}, false
}

// Hook is an agent's pre-command hook, for clada hook NAME.
type Hook struct {
	Name   string // "claude-code"
	Title  string // "Claude Code"
	Answer func(in io.Reader, out, stderr io.Writer, env Env) int
}

// Hooks returns the agents clada answers the hook of, in the order its
// help lists them (claude-code, gemini, cursor).
func Hooks() []Hook {
	hs := make([]Hook, len(agents))
	for i, a := range agents {
		hs[i] = Hook{Name: a.name, Title: a.title, Answer: a.answer}
	}
	return hs
}

// AgentFromEnv names the agent whose shell started clada, from the
// variable each agent sets for the commands it runs (CLAUDECODE=1 for
// Claude Code, GEMINI_CLI=1 for Gemini CLI); "" when none is set.
func AgentFromEnv(getenv func(string) string) string {
	for _, a := range agents {
		if k, v, ok := strings.Cut(a.envMark, "="); ok && getenv(k) == v {
			return a.name
		}
	}
	return ""
}

type claudeGroup struct {
	Matcher string       `json:"matcher"`
	Hooks   []claudeHook `json:"hooks"`
}

type claudeHook struct {
	Type      string `json:"type"`
	Command   string `json:"command"`
	Timeout   int    `json:"timeout"` // seconds
	OnFailure string `json:"onFailure"`
}

// claudeMatcher is the tools clada's Claude Code hook answers for.
const claudeMatcher = "Bash|Monitor"

type geminiGroup struct {
	Matcher string       `json:"matcher"`
	Hooks   []geminiHook `json:"hooks"`
}

type geminiHook struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"` // milliseconds
}

type cursorHook struct {
	Command string `json:"command"`
}

// Agents returns the names of the agents clada has a hook for, sorted.
func Agents() []string {
	names := make([]string, 0, len(agents))
	for _, a := range agents {
		names = append(names, a.name)
	}
	slices.Sort(names)
	return names
}

// InstallOptions say which settings file to change.
type InstallOptions struct {
	Agent string // "claude-code", "gemini" or "cursor"
	// User selects the user's settings file under Home; false, the
	// project's under Root.
	User bool
	Root string // the project root, absolute
	Home string // the home directory, absolute
	// Clada is how the hook command names clada: "clada" when that is
	// the clada on PATH, else its absolute path.
	Clada string
}

// Path returns the settings file o names.
func (o InstallOptions) Path() (string, error) {
	s, ok := agentNamed(o.Agent)
	if !ok {
		return "", fmt.Errorf("no hook for %q: clada has hooks for %s", o.Agent, strings.Join(Agents(), ", "))
	}
	if o.User {
		if o.Home == "" {
			return "", errors.New("no home directory for --user")
		}
		return filepath.Join(o.Home, filepath.FromSlash(s.user)), nil
	}
	return filepath.Join(o.Root, filepath.FromSlash(s.project)), nil
}

// HookCommand is the command line install writes: `clada hook AGENT`.
func (o InstallOptions) HookCommand() string {
	return ShellQuote([]string{o.Clada, "hook", o.Agent})
}

// SettingsError is a settings file clada will not change, with where and
// why.
type SettingsError struct {
	Path      string
	Line, Col int // 1-based; 0 when the whole file is meant
	Msg       string
}

func (e *SettingsError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// Install adds clada's hook to the agent's settings file and returns the
// file; changed is false when the hook was already there. Everything else
// in the file stays as it was, comments and formatting included. A file
// that does not parse, or whose "hooks" is not what the agent reads, is
// a *SettingsError and is not touched.
func Install(o InstallOptions) (path string, changed bool, err error) {
	path, err = o.Path()
	if err != nil {
		return "", false, err
	}
	a, _ := agentNamed(o.Agent)
	s := a.settings
	data, root, err := readSettings(path)
	if err != nil {
		return path, false, err
	}
	entry := s.entry(o.HookCommand())
	if root != nil && len(ours(data, root, s, o.Agent)) > 0 {
		if !outdated(root, s, o.Agent) {
			return path, false, nil
		}
		// An older form of clada's entry: replaced by today's.
		if data, root, _, err = removeOurs(path, data, root, s, o.Agent); err != nil {
			return path, false, err
		}
	}
	if root == nil {
		data = newSettings(s, entry) // a new, or empty, file
	} else {
		var e edit
		hooks := root.get("hooks")
		switch {
		case hooks == nil:
			e = insertLast(data, root, "hooks", map[string]any{s.event: []any{entry}})
		case hooks.kind != kObject:
			return path, false, structureError(path, data, hooks, `"hooks" is not an object`)
		default:
			list := hooks.get(s.event)
			switch {
			case list == nil:
				e = insertLast(data, hooks, s.event, []any{entry})
			case list.kind != kArray:
				return path, false, structureError(path, data, list, fmt.Sprintf(`"hooks"."%s" is not a list`, s.event))
			default:
				e = insertLast(data, list, "", entry)
			}
		}
		data = e.apply(data)
	}
	if err := checkWritten(path, data, s, o.Agent, true); err != nil {
		return path, false, err
	}
	return path, true, writeAtomic(path, data)
}

// outdated reports whether some clada hook entry in the file is not in
// the form install writes today (s.current).
func outdated(root *node, s settings, agent string) bool {
	if s.current == nil || !s.grouped {
		return false
	}
	list := root.get("hooks").get(s.event)
	if list == nil || list.kind != kArray {
		return false
	}
	for _, g := range list.elems {
		inner := g.get("hooks")
		if inner == nil || inner.kind != kArray {
			continue
		}
		for _, h := range inner.elems {
			if isOurs(h, agent) && !s.current(g, h) {
				return true
			}
		}
	}
	return false
}

// removeOurs removes every clada hook entry of the agent from data and
// returns the text, its parse (nil when nothing is left but blanks) and
// how many it removed.
func removeOurs(path string, data []byte, root *node, s settings, agent string) ([]byte, *node, int, error) {
	removed := 0
	for {
		found := ours(data, root, s, agent)
		if len(found) == 0 {
			return data, root, removed, nil
		}
		data = applyAll(data, found[0])
		removed++
		var err error
		if root, err = parseJSONC(data); err != nil {
			return nil, nil, 0, fmt.Errorf("%s: removing the hook would break the file (%v); it was left unchanged", path, err)
		}
	}
}

// newSettings is a new settings file that holds clada's hook entry.
func newSettings(s settings, entry any) []byte {
	var b strings.Builder
	b.WriteString("{\n")
	for _, m := range s.top {
		b.WriteString("  " + memberText(m.key, m.val, false, "  ", "  ") + ",\n")
	}
	b.WriteString("  " + memberText("hooks", map[string]any{s.event: []any{entry}}, false, "  ", "  ") + "\n}\n")
	return []byte(b.String())
}

// Uninstall removes every hook entry that runs `clada hook AGENT` from the
// agent's settings file, and the lists and objects that leaves empty,
// and returns the file and how many entries it removed. A missing file
// has none.
func Uninstall(o InstallOptions) (path string, removed int, err error) {
	path, err = o.Path()
	if err != nil {
		return "", 0, err
	}
	a, _ := agentNamed(o.Agent)
	s := a.settings
	data, root, err := readSettings(path)
	if err != nil || root == nil {
		return path, 0, err
	}
	if data, root, removed, err = removeOurs(path, data, root, s, o.Agent); err != nil {
		return path, 0, err
	}
	if removed == 0 {
		return path, 0, nil
	}
	// Remove what is left empty: the event's list, then "hooks".
	if hooks := root.get("hooks"); hooks != nil && hooks.kind == kObject {
		if list := hooks.get(s.event); list != nil && list.kind == kArray && len(list.elems) == 0 {
			data = applyAll(data, removeAt(data, hooks, lastIndex(hooks, s.event)))
			if root, err = parseJSONC(data); err != nil {
				return path, 0, err
			}
			if hooks = root.get("hooks"); hooks != nil && hooks.kind == kObject && len(hooks.members) == 0 {
				data = applyAll(data, removeAt(data, root, lastIndex(root, "hooks")))
			}
		}
	}
	if err := checkWritten(path, data, s, o.Agent, false); err != nil {
		return path, 0, err
	}
	return path, removed, writeAtomic(path, data)
}

// lastIndex is the index of the last member named key of object n.
func lastIndex(n *node, key string) int {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// ours returns, for each of clada's hook entries in the file, the edit
// that removes it: the whole group when clada's hook is its only one,
// else just clada's hook in it.
func ours(data []byte, root *node, s settings, agent string) [][]edit {
	hooks := root.get("hooks")
	list := hooks.get(s.event)
	if list == nil || list.kind != kArray {
		return nil
	}
	var edits [][]edit
	for i, e := range list.elems {
		if !s.grouped {
			if isOurs(e, agent) {
				edits = append(edits, removeAt(data, list, i))
			}
			continue
		}
		inner := e.get("hooks")
		if inner == nil || inner.kind != kArray {
			continue
		}
		for j, h := range inner.elems {
			if !isOurs(h, agent) {
				continue
			}
			if len(inner.elems) == 1 {
				edits = append(edits, removeAt(data, list, i))
			} else {
				edits = append(edits, removeAt(data, inner, j))
			}
		}
	}
	return edits
}

// isOurs reports whether the hook object h runs `clada hook AGENT`.
func isOurs(h *node, agent string) bool {
	cmd := h.get("command")
	if cmd == nil || cmd.kind != kString {
		return false
	}
	argv, err := parser.Command(cmd.str)
	return err == nil && len(argv) == 3 && specs.ProgName(argv[0]) == "clada" && argv[1] == "hook" && argv[2] == agent
}

// readSettings reads and parses path; root is nil when the file does not
// exist or holds only blanks.
func readSettings(path string) (data []byte, root *node, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff")) == "" {
		return data, nil, nil
	}
	root, err = parseJSONC(data)
	var se *SyntaxError
	if errors.As(err, &se) {
		return nil, nil, &SettingsError{Path: path, Line: se.Line, Col: se.Col, Msg: se.Msg + "; clada will not change a file it cannot read"}
	}
	if err != nil {
		return nil, nil, err
	}
	if root.kind != kObject {
		return nil, nil, structureError(path, data, root, "the file is not a JSON object")
	}
	return data, root, nil
}

func structureError(path string, data []byte, n *node, msg string) error {
	line := 1 + strings.Count(string(data[:n.start]), "\n")
	return &SettingsError{Path: path, Line: line, Msg: msg + "; clada will not change it"}
}

// checkWritten parses what is about to be written and checks that clada's
// hook is there (install) or gone (uninstall), so a mistake in an edit
// can never reach the file.
func checkWritten(path string, data []byte, s settings, agent string, want bool) error {
	root, err := parseJSONC(data)
	if err == nil && (len(ours(data, root, s, agent)) > 0) != want {
		err = errors.New("the edit did not do what it should")
	}
	if err != nil {
		return fmt.Errorf("%s: clada's edit went wrong (%v); the file was left unchanged: please report this", path, err)
	}
	return nil
}

// writeAtomic replaces path with data (atomicfile), keeping the file's
// permissions (0644 for a new file) and creating its directory; when
// path is a symbolic link, the file it points to is replaced.
func writeAtomic(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a linked settings file (dotfiles) stays linked
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{Perm: atomicfile.Perm(path, 0o644)}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
