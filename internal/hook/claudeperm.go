package hook

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Claude Code's own permission rules for its Bash tool, read so that they
// keep their meaning under clada's hook (issue 28, item 1).
//
// Claude Code matches its deny and ask rules against the command its Bash
// tool runs; once clada rewrites an allowed command to `clada exec …`, a
// rule such as `Bash(git status)` no longer matches it, and the person's
// deny would silently stop working. So the hook reads those rules itself,
// from every settings scope Claude Code has, and matches them against the
// command as the model wrote it, before it rewrites: a deny rule that
// matches is clada's deny, an ask rule that matches is clada's ask.
//
// Scopes read (Claude Code 2.1.332; arrays of rules are merged across
// scopes, and clada takes the union, which can only deny or ask more):
//
//   - managed: managed-settings.json and managed-settings.d/*.json in
//     /etc/claude-code (Linux and WSL), /Library/Application
//     Support/ClaudeCode (macOS), C:\Program Files\ClaudeCode (Windows);
//   - user: ~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json;
//   - project and local: .claude/settings.json and
//     .claude/settings.local.json of the directory Claude Code started in
//     ($CLAUDE_PROJECT_DIR) and of clada's project root, where Claude
//     Code ≥ 2.1.211 saves "don't ask again" rules for the whole
//     repository.
//
// Rules read: the strings in permissions.deny and permissions.ask whose
// tool is Bash: `Bash` and `Bash(*)` (every command), `Bash(CMD)` (exactly
// CMD), `Bash(PREFIX:*)` (PREFIX alone or followed by a space and
// anything), and `Bash(PATTERN)` where each unescaped * matches any run
// of characters (`\*` is a star) and a single trailing ` *` also matches
// nothing (`Bash(ls *)` matches `ls` and `ls -la`, not `lsof`). These are
// Claude Code's own semantics (its matcher in the 2.1.332 package).
//
// Each rule is matched against the command line as written and against
// every simple command in it (the parts of pipes, &&, ||, ;), each also
// with quotes and backslashes removed, its program by its base name,
// leading NAME=value assignments and redirections left out, and the
// wrappers timeout, nice, nohup, time, stdbuf, env, command and exec
// stripped with their options; runs of blanks count as one space. A rule
// matches when it matches any of these. Limits: Claude Code's matcher
// also normalises forms clada does not (ANSI-C quoting, line
// continuations inside words, wrappers such as ionice or setsid), and a
// rule is matched only against the text the model wrote, never against
// what a variable or a glob would expand to (clada denies those forms in
// its own decision anyway, or decides each part). Allow rules are not
// read: they let Claude Code skip its own prompt, and never loosen what
// clada decides.
type claudeRules struct {
	deny, ask []claudeRule
}

// claudeRule is one Bash rule and where it was read.
type claudeRule struct {
	text string // as written, `Bash(git status)`
	file string
	all  bool           // Bash, Bash(*)
	re   *regexp.Regexp // the rule's content as a pattern
}

// claudeSettingsFiles are the settings files whose rules count for a
// session started in projectDir with clada's root root.
func claudeSettingsFiles(getenv func(string) string, projectDir, root string) []string {
	var files []string
	managed := "/etc/claude-code"
	switch runtime.GOOS {
	case "darwin":
		managed = "/Library/Application Support/ClaudeCode"
	case "windows":
		managed = `C:\Program Files\ClaudeCode`
	}
	files = append(files, filepath.Join(managed, "managed-settings.json"))
	if d, err := filepath.Glob(filepath.Join(managed, "managed-settings.d", "*.json")); err == nil {
		slices.Sort(d)
		files = append(files, d...)
	}
	if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		files = append(files, filepath.Join(dir, "settings.json"))
	} else if home := getenv("HOME"); home != "" {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	} else if home := getenv("USERPROFILE"); home != "" {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	for _, d := range []string{projectDir, root} {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		for _, f := range []string{"settings.json", "settings.local.json"} {
			p := filepath.Join(d, ".claude", f)
			if !slices.Contains(files, p) {
				files = append(files, p)
			}
		}
	}
	return files
}

// readClaudeRules reads the Bash rules of files. A file that is missing
// has none; one that cannot be read or parsed is an error naming it (the
// hook then denies: the person's rules could not be checked).
func readClaudeRules(files []string) (*claudeRules, error) {
	rs := &claudeRules{}
	for _, f := range files {
		data, err := readSettingsFile(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading Claude Code's settings %s: %v", f, err)
		}
		if strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff")) == "" {
			continue
		}
		root, err := parseJSONC(data)
		if err != nil {
			return nil, fmt.Errorf("the Claude Code settings %s do not parse (%v), so clada cannot check the permission rules in them", f, err)
		}
		perms := root.get("permissions")
		for _, list := range []struct {
			key string
			to  *[]claudeRule
		}{{"deny", &rs.deny}, {"ask", &rs.ask}} {
			arr := perms.get(list.key)
			if arr == nil || arr.kind != kArray {
				continue
			}
			for _, e := range arr.elems {
				if e.kind != kString {
					continue
				}
				if r, ok := parseClaudeRule(e.str); ok {
					r.file = f
					*list.to = append(*list.to, r)
				}
			}
		}
	}
	return rs, nil
}

// maxSettings caps what the hook reads of one settings file: a file
// that is larger (or a link to /dev/zero) is an error, not a hang.
const maxSettings = 4 << 20

// readSettingsFile reads a settings file of at most maxSettings bytes,
// only if it is a regular file (links followed).
func readSettingsFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err == nil && len(data) > maxSettings {
		err = fmt.Errorf("more than %d bytes", maxSettings)
	}
	return data, err
}

// parseClaudeRule reads a rule string; ok is false for a rule of another
// tool.
func parseClaudeRule(s string) (claudeRule, bool) {
	r := claudeRule{text: s}
	s = strings.TrimSpace(s)
	if s == "Bash" {
		r.all = true
		return r, true
	}
	if !strings.HasPrefix(s, "Bash(") || !strings.HasSuffix(s, ")") {
		return r, false
	}
	content := strings.TrimSpace(s[len("Bash(") : len(s)-1])
	if content == "" || content == "*" {
		r.all = true
		return r, true
	}
	r.re = claudePattern(content)
	return r, true
}

// claudePattern compiles a rule's content as Claude Code matches it
// against a command: `P:*` is `P *`; each unescaped * matches anything; a
// single * at the end after a space also matches nothing; otherwise the
// content must match the whole command.
func claudePattern(content string) *regexp.Regexp {
	content = blanks.ReplaceAllString(content, " ")
	if strings.HasSuffix(content, ":*") {
		content = strings.TrimSuffix(content, ":*") + " *"
	}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c == '\\' && i+1 < len(content) && (content[i+1] == '*' || content[i+1] == '\\') {
			cur.WriteByte(content[i+1])
			i++
			continue
		}
		if c == '*' {
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	parts = append(parts, cur.String())
	var b strings.Builder
	b.WriteString("^")
	for i, p := range parts {
		q := regexp.QuoteMeta(p)
		if len(parts) == 2 && i == 0 && parts[1] == "" && strings.HasSuffix(p, " ") {
			q = regexp.QuoteMeta(strings.TrimSuffix(p, " ")) + "(?: |$)"
		}
		if i > 0 {
			b.WriteString("(?s:.*)")
		}
		b.WriteString(q)
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

var blanks = regexp.MustCompile(`[ \t]+`)

// match returns the first deny rule, else the first ask rule, that
// matches command, and the text it matched (command, or one part of it);
// nil when none does.
func (rs *claudeRules) match(command string) (r *claudeRule, deny bool, matched string) {
	cands := claudeCandidates(command)
	for _, list := range []struct {
		rules []claudeRule
		deny  bool
	}{{rs.deny, true}, {rs.ask, false}} {
		for i := range list.rules {
			rule := &list.rules[i]
			if rule.all {
				return rule, list.deny, command
			}
			for _, c := range cands {
				if rule.re.MatchString(c) {
					return rule, list.deny, c
				}
			}
		}
	}
	return nil, false, ""
}

// claudeWrappers are programs that run the rest of their arguments as a
// command, stripped before matching.
var claudeWrappers = map[string]bool{"timeout": true, "nice": true, "nohup": true, "time": true,
	"stdbuf": true, "env": true, "command": true, "exec": true, "builtin": true}

// claudeCandidates are the texts a rule is matched against (see
// claudeRules).
func claudeCandidates(command string) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(blanks.ReplaceAllString(s, " "))
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(command)
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(command), "")
	if err != nil {
		add(unquote(command))
		return out
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, w := range call.Args {
			words[i] = command[w.Pos().Offset():w.End().Offset()]
		}
		for _, ws := range [][]string{words, stripWrappers(words)} {
			if len(ws) == 0 {
				continue
			}
			add(strings.Join(ws, " "))
			plain := make([]string, len(ws))
			for i, w := range ws {
				plain[i] = unquote(w)
			}
			add(strings.Join(plain, " "))
			if base := filepath.Base(plain[0]); base != plain[0] {
				add(strings.Join(append([]string{base}, plain[1:]...), " "))
			}
		}
		return true
	})
	return out
}

// unquote removes quotes and backslashes, as Claude Code's matcher does
// for its second try.
func unquote(s string) string {
	return strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(s)
}

// stripWrappers drops leading wrapper programs (and NAME=value words of
// env) with their options and, for timeout, its duration.
func stripWrappers(words []string) []string {
	for len(words) > 0 {
		name := filepath.Base(unquote(words[0]))
		if !claudeWrappers[name] {
			return words
		}
		words = words[1:]
		for len(words) > 0 && (strings.HasPrefix(words[0], "-") || (name == "env" && strings.Contains(words[0], "="))) {
			opt := words[0]
			words = words[1:]
			// Options that take a separate value.
			if len(words) > 0 && ((name == "nice" && opt == "-n") || (name == "timeout" && (opt == "-s" || opt == "-k" || opt == "--signal" || opt == "--kill-after")) ||
				(name == "stdbuf" && (opt == "-i" || opt == "-o" || opt == "-e")) || (name == "env" && (opt == "-u" || opt == "-C" || opt == "--unset" || opt == "--chdir"))) {
				words = words[1:]
			}
		}
		if name == "timeout" && len(words) > 0 {
			words = words[1:] // the duration
		}
	}
	return words
}
