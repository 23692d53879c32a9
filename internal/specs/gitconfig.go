package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/smallfile"
)

// patchTargets denies a git format-patch output directory res (written as
// w) that holds an entry git may write (pn: 0001-subject.patch, 1 with
// --numbered-files, v2-0001-x.txt with -v 2 --suffix=.txt) which is a
// symlink or a hard-linked file: git would write through it, and the
// other end may be inside .git/ or .clada/. pn is nil for other commands,
// whose output file is checked as any written path.
func patchTargets(w, res string, pn *gitrules.PatchNames) error {
	if pn == nil {
		return nil
	}
	ents, err := os.ReadDir(res)
	if err != nil {
		return nil // missing: git creates it; a file: git fails
	}
	for _, e := range ents {
		n := e.Name()
		if !pn.Match(n) {
			continue
		}
		p := filepath.Join(res, n)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return &rules.Denied{Rule: rules.ProtectedPath, Word: w,
				Reason: fmt.Sprintf("%s holds %s, a symlink that git format-patch would write through", w, n),
				Advice: "write the patches into another directory with -o, or remove the link first"}
		}
		if err := hardLinked(filepath.Join(w, n), p); err != nil {
			return err
		}
	}
	return nil
}

// maxConfigFile caps how much of one git configuration file is read.
const maxConfigFile = 1 << 20

// configCredential looks at the git configuration files that a git
// command reading cr would print from, and returns the first entry it
// would print that may hold a credential (gitrules.CredentialEntry), with
// why; "" when none. Files are found as git finds them, with getenv for
// HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM; includes
// are followed. A name regexp that does not compile matches every name.
// A --file outside the root never gets here (gitrules reports it in Paths
// and checkGit confines it first).
func configCredential(cr *gitrules.ConfigRead, dir string, r *Resolver, getenv func(string) string) (name, why string) {
	var res []*regexp.Regexp
	matchAll := cr.All
	for _, re := range cr.Regexps {
		c, err := regexp.Compile("(?i)" + re)
		if err != nil {
			matchAll = true
			continue
		}
		res = append(res, c)
	}
	want := map[string]bool{}
	for _, n := range cr.Names {
		want[canonicalConfigName(n)] = true
	}
	selected := func(n string) bool {
		if matchAll || want[n] {
			return true
		}
		for _, re := range res {
			if re.MatchString(n) {
				return true
			}
		}
		return false
	}
	for _, f := range configFiles(cr, dir, r, getenv) {
		name, why = scanConfig(f, 0, getenv, func(n, v string) string {
			if !selected(n) {
				return ""
			}
			if cr.NamesOnly {
				if gitrules.HasURLCredential(n) {
					return "its name holds a URL with a user name or password"
				}
				return ""
			}
			return gitrules.CredentialEntry(n, v)
		})
		if name != "" {
			return name, why
		}
	}
	return "", ""
}

// configFiles returns the files git reads for cr's scope, in git's order.
// System configuration is read only for --system: clada runs git with
// GIT_CONFIG_NOSYSTEM=1.
func configFiles(cr *gitrules.ConfigRead, dir string, r *Resolver, getenv func(string) string) []string {
	local := localConfigFiles(r.Root())
	switch cr.Scope {
	case "local":
		return local[:1]
	case "worktree":
		return local[1:]
	case "global":
		return globalConfigFiles(getenv)
	case "system":
		if s := getenv("GIT_CONFIG_SYSTEM"); s != "" {
			return []string{s}
		}
		return []string{"/etc/gitconfig"}
	case "file":
		res, err := r.Resolve(dir, cr.File)
		if err != nil {
			return nil
		}
		return []string{res}
	}
	return append(globalConfigFiles(getenv), local...)
}

// scanConfig reads one git configuration file (missing is empty), follows
// include.path and includeIf.*.path (conditions are not evaluated: the
// file may be included), and returns the first entry for which check
// returns a reason.
func scanConfig(file string, depth int, getenv func(string) string, check func(name, value string) string) (string, string) {
	if depth > maxIncludeDepth {
		return "", ""
	}
	data, err := smallfile.Read(file, maxConfigFile-1)
	if err != nil {
		return "", ""
	}
	var found, why string
	parseGitConfig(data, func(name, value string) bool {
		if why = check(name, value); why != "" {
			found = name
			return false
		}
		if name == "include.path" || strings.HasPrefix(name, "includeif.") && strings.HasSuffix(name, ".path") {
			inc, ok := includeTarget(value, file, getenv("HOME"))
			if !ok {
				return true
			}
			if found, why = scanConfig(inc, depth+1, getenv, check); found != "" {
				return false
			}
		}
		return true
	})
	return found, why
}

// canonicalConfigName lower-cases the section and key of a configuration
// name and keeps the subsection as written, as git compares them.
func canonicalConfigName(n string) string {
	i := strings.IndexByte(n, '.')
	j := strings.LastIndexByte(n, '.')
	if i < 0 {
		return strings.ToLower(n)
	}
	return strings.ToLower(n[:i]) + n[i:j] + strings.ToLower(n[j:])
}

// parseGitConfig calls fn with the canonical name and the value of each
// entry of a git configuration file (see [configEntries]), until fn
// returns false. A key alone is true, as git reads it.
func parseGitConfig(data []byte, fn func(name, value string) bool) {
	configEntries(data, func(e configEntry) bool {
		value := e.value
		if e.bare {
			value = "true"
		}
		return fn(e.name(), value)
	})
}

// configEntry is one entry of a git configuration file.
type configEntry struct {
	section string // lower case: "remote", "diff", "includeif"
	sub     string // the subsection: as written in [remote "Origin"], lower case in the deprecated [a.B]; "" when none
	key     string // lower case
	value   string // unquoted, without a trailing comment (configValue)
	bare    bool   // a key alone on its line, with no "=": git reads it as true
}

// name returns the canonical name git prints: section.sub.key, or
// section.key when there is no subsection.
func (e configEntry) name() string {
	if e.sub == "" {
		return e.section + "." + e.key
	}
	return e.section + "." + e.sub + "." + e.key
}

// configEntries is clada's one reader of git configuration files: it
// calls fn with each entry until fn returns false. It follows git's
// syntax closely enough to find names and values: [section],
// [section "subsection"], [section.subsection], key = value, a key alone,
// a key after a header on the same line, quotes, backslash escapes and
// continuation lines, # and ; comments. A section header ends where git
// ends it: after the name at the first "]", or, for a quoted subsection,
// at the "]" right after the closing quote, so [url "https://h/x]y"] is
// one header and the "]" in [core] pager = "less ]" is the value's. A
// line git would reject is skipped (git refuses the whole file, so it
// prints and runs nothing from it), and a malformed header leaves the
// section as it was. Lines have no length limit.
func configEntries(data []byte, fn func(configEntry) bool) {
	section, sub := "", ""
	for rest := string(data); rest != ""; {
		var line string
		line, rest = nextConfigLine(rest)
		line = strings.TrimSpace(line)
		for strings.HasSuffix(line, `\`) && rest != "" {
			var next string
			next, rest = nextConfigLine(rest)
			line = line[:len(line)-1] + strings.TrimRight(next, " \t\r")
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			sec, s, after, ok := configHeader(line)
			if !ok {
				continue
			}
			section, sub = sec, s
			line = strings.TrimSpace(after)
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		key, value, eq := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if section == "" || key == "" {
			continue
		}
		if !fn(configEntry{section: section, sub: sub, key: key, value: configValue(value), bare: !eq}) {
			return
		}
	}
}

// nextConfigLine splits s at its first newline.
func nextConfigLine(s string) (line, rest string) {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// configHeader reads the section header at the start of line, as git's
// config.c does: "[" then a name of letters, digits, "-" and "."; then
// either "]", or white space, a quoted subsection (in which a backslash
// keeps the next character as it is, "]" included) and "]" right after
// the closing quote. The section is lower case, and so is the
// subsection of the deprecated dotted form [section.sub]; a quoted
// subsection stays as written. after is the rest of the line; ok is
// false for a header git rejects.
func configHeader(line string) (section, sub, after string, ok bool) {
	i := 1
	for i < len(line) && (isConfigKeyChar(line[i]) || line[i] == '.') {
		i++
	}
	name := strings.ToLower(line[1:i])
	if name == "" || i == len(line) {
		return "", "", "", false
	}
	if line[i] == ']' {
		section, sub, _ = strings.Cut(name, ".")
		return section, sub, line[i+1:], true
	}
	if line[i] != ' ' && line[i] != '\t' {
		return "", "", "", false
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) || line[i] != '"' {
		return "", "", "", false
	}
	var b strings.Builder
	for i++; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			if i+1 < len(line) && line[i+1] == ']' {
				return name, b.String(), line[i+2:], true
			}
			return "", "", "", false
		case '\\':
			if i+1 < len(line) {
				i++
				b.WriteByte(line[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", "", false
}

// isConfigKeyChar reports whether c may stand in a git configuration
// section or key name: a letter, a digit or "-".
func isConfigKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}
