package specs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/clada/clada/internal/gitrules"
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
			return &DeniedError{Rule: RuleProtectedPath, Arg: w,
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
// entry of a git configuration file, until fn returns false. It follows
// git's syntax closely enough to find names and values: [section],
// [section "subsection"], [section.subsection], key = value, a key alone
// (true), quotes, backslash escapes and continuation lines, # and ;
// comments. Malformed lines are skipped.
func parseGitConfig(data []byte, fn func(name, value string) bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), maxConfigFile)
	section := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, `\`) && sc.Scan() {
			line = line[:len(line)-1] + sc.Text()
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.LastIndexByte(line, ']')
			if end < 0 {
				continue
			}
			h := line[1:end]
			if q := strings.IndexByte(h, '"'); q >= 0 {
				sub := strings.TrimSuffix(h[q+1:], `"`)
				sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub)
				section = strings.ToLower(strings.TrimSpace(h[:q])) + "." + sub
			} else if k := strings.IndexByte(h, '.'); k >= 0 {
				section = strings.ToLower(h[:k]) + "." + strings.ToLower(h[k+1:]) // deprecated form: lower-cased
			} else {
				section = strings.ToLower(h)
			}
			rest := strings.TrimSpace(line[end+1:])
			if rest == "" || rest[0] == '#' || rest[0] == ';' {
				continue
			}
			line = rest // a key may follow the header on the same line
		}
		key, value, eq := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !eq {
			value = "true"
		}
		if section == "" || key == "" {
			continue
		}
		if !fn(section+"."+key, configValue(value)) {
			return
		}
	}
}
