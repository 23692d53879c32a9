package specs

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/smallfile"
)

// gitConfCache remembers, per root, the result of [gitConfigInProject]
// for one Set, that is one run: the files are read once, however many git
// commands a reply holds.
type gitConfCache struct {
	mu   sync.Mutex
	root string
	done bool
	file string
	from string

	textconvRoot string // gitTextconv's cache, for this root
	textconvDone bool
	textconv     string
}

// gitConfig returns gitConfigInProject for r's root, read once per Set.
func (s *Set) gitConfig(r *Resolver) (file, from string) {
	c := &s.gitConf
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done || c.root != r.Root() {
		c.file, c.from = gitConfigInProject(r, os.Getenv)
		c.root, c.done = r.Root(), true
	}
	return c.file, c.from
}

// gitIncludeAsk is the Ask verdict for a git command while file, a git
// configuration file inside the project, is read (included by from, ""
// when git reads it directly).
func gitIncludeAsk(r *Resolver, file, from string) Verdict {
	shown := file
	if rel, err := filepath.Rel(r.Root(), file); err == nil && !strings.HasPrefix(rel, "..") {
		shown = rel
	}
	why := "git reads " + shown + " as configuration"
	if from != "" {
		why = "your git configuration " + from + " includes " + shown
	}
	return Verdict{Outcome: Ask, Rule: rules.GitInclude, Arg: shown,
		Reason: why + ", a file inside the project that a command can write, and git configuration can name programs for git to run",
		Advice: "the person is asked about every git command until the include is gone; they can move the file out of the project or into .git/"}
}

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = 10

// gitConfigInProject returns the first git configuration file that git
// reads for the project at r's root and that lies inside the root, outside
// .git/ and .clada/ (which the model cannot write), and the configuration
// file that includes it ("" when it is read directly). It returns "" when
// there is none. It reads the files git reads with GIT_CONFIG_NOSYSTEM=1:
// $GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config and ~/.gitconfig;
// then .git/config and .git/config.worktree; and every file they include,
// whatever the condition of an [includeIf] (clada does not evaluate it).
func gitConfigInProject(r *Resolver, getenv func(string) string) (file, from string) {
	files := append(globalConfigFiles(getenv), localConfigFiles(r.Root())...)
	seen := map[string]bool{}
	var walk func(path, from string, depth int) (string, string)
	walk = func(path, from string, depth int) (string, string) {
		if depth > maxIncludeDepth || seen[path] || path == os.DevNull {
			return "", ""
		}
		seen[path] = true
		if writableInRoot(r, path) {
			return path, from
		}
		data, err := smallfile.Read(path, -1)
		if err != nil {
			return "", ""
		}
		for _, inc := range configIncludes(data) {
			target, ok := includeTarget(inc, path, getenv("HOME"))
			if !ok {
				continue
			}
			if f, fr := walk(target, path, depth+1); f != "" {
				return f, fr
			}
		}
		return "", ""
	}
	for _, f := range files {
		if file, from := walk(f, "", 0); file != "" {
			return file, from
		}
	}
	return "", ""
}

// globalConfigFiles returns the global git configuration files, as git
// finds them: $GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config (default
// ~/.config/git/config) and ~/.gitconfig.
func globalConfigFiles(getenv func(string) string) []string {
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		return []string{g}
	}
	var files []string
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// localConfigFiles returns the repository's configuration files under
// root: .git/config and .git/config.worktree.
func localConfigFiles(root string) []string {
	gitDir := filepath.Join(root, ".git")
	return []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
}

// writableInRoot reports whether path resolves inside r's root, outside
// .git/ and .clada/.
func writableInRoot(r *Resolver, path string) bool {
	res, err := r.Resolve(r.Root(), path)
	return err == nil && r.protected(res) == ""
}

// includeTarget resolves an include path as git does: ~/ is the home
// directory, a relative path is relative to the directory of the file
// that includes it. ok is false for forms clada does not resolve
// (~user/, %(prefix)/), which name files outside any project.
func includeTarget(inc, from, home string) (string, bool) {
	switch {
	case strings.HasPrefix(inc, "~/"):
		if home == "" {
			return "", false
		}
		return filepath.Join(home, inc[2:]), true
	case strings.HasPrefix(inc, "~"), strings.HasPrefix(inc, "%(prefix)"):
		return "", false
	case filepath.IsAbs(inc):
		return inc, true
	}
	return filepath.Join(filepath.Dir(from), inc), true
}

// configIncludes returns the values of path in the [include] and
// [includeIf "…"] sections of a git configuration file. It reads the
// syntax git writes and documents (sections, key = value, quotes,
// backslash escapes, comments, continuation lines); on anything else it
// keeps going, since a missed include only matters when it names a
// project file, and git itself would refuse a malformed file.
func configIncludes(data []byte) []string {
	var out []string
	configEntries(data, func(e configEntry) bool {
		if (e.section == "include" || e.section == "includeif") && e.key == "path" && !e.bare && e.value != "" {
			out = append(out, e.value)
		}
		return true
	})
	return out
}

// configValue unquotes a git configuration value and drops a trailing
// comment outside quotes.
func configValue(s string) string {
	var b strings.Builder
	quoted := false
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitTextconv says where a textconv driver is configured for the project
// ("diff.pdf.textconv is set in /home/u/.gitconfig", or that the
// environment may set one), "" when none is: it reads the same files as
// [gitConfigInProject], once per Set and root, off the hot path of
// commands that show no such diff.
func (s *Set) gitTextconv(r *Resolver) string {
	c := &s.gitConf
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.textconvDone || c.textconvRoot != r.Root() {
		c.textconv = textconvDriver(r, os.Getenv)
		c.textconvRoot, c.textconvDone = r.Root(), true
	}
	return c.textconv
}

// textconvDriver returns where a diff.*.textconv key is set in the git
// configuration files of the project at r's root and the files they
// include, or that GIT_CONFIG_COUNT or GIT_CONFIG_PARAMETERS may set one;
// "" when neither.
func textconvDriver(r *Resolver, getenv func(string) string) string {
	for _, e := range []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"} {
		if getenv(e) != "" {
			return e + " in the environment may set one"
		}
	}
	files := append(globalConfigFiles(getenv), localConfigFiles(r.Root())...)
	seen := map[string]bool{}
	var walk func(path string, depth int) string
	walk = func(path string, depth int) string {
		if depth > maxIncludeDepth || seen[path] || path == os.DevNull {
			return ""
		}
		seen[path] = true
		data, err := smallfile.Read(path, -1)
		if err != nil {
			return ""
		}
		if key := configTextconv(data); key != "" {
			return key + " is set in " + path
		}
		for _, inc := range configIncludes(data) {
			if target, ok := includeTarget(inc, path, getenv("HOME")); ok {
				if found := walk(target, depth+1); found != "" {
					return found
				}
			}
		}
		return ""
	}
	for _, f := range files {
		if found := walk(f, 0); found != "" {
			return found
		}
	}
	return ""
}

// configTextconv returns the first diff.NAME.textconv key set in a git
// configuration file, "" when none. It errs towards finding one: any
// textconv key in a [diff] section counts, whatever its value.
func configTextconv(data []byte) string {
	found := ""
	configEntries(data, func(e configEntry) bool {
		if e.section == "diff" && e.key == "textconv" {
			found = "diff." + e.sub + ".textconv"
			return false
		}
		return true
	})
	return found
}
