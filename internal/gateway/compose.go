package gateway

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// Composite is a composition (parser.Script) decided part by part: every
// command, with its redirections, and every `cd`, decided by the same
// gate as a command on its own, in the directory it will run in. The
// whole is the strictest of its parts (deny, then ask, then allow), and
// Verdict is the part that decides it, with its position in the reason.
// Patterns consent to parts, never to the whole text.
type Composite struct {
	Script *parser.Script
	Parts  []*Part
	// Verdict is the whole's: the deciding part's decision, rule, word,
	// reason and advice. Exec, Env and Dir are empty: a composite runs
	// through [Gateway.RunComposite], part by part.
	Verdict
	// Decider is the index in Parts of the part that decides, -1 when
	// every part is allowed.
	Decider int
}

// Part is one command or `cd` of a composite, decided.
type Part struct {
	Pipeline int // index in Script.Pipelines
	Cmd      int // index in its pipeline; -1 for a cd statement
	Text     string
	// Argv is what was decided: the command's words after brace and
	// glob expansion, behind `env NAME=value` for prefixes; ["cd", DIR]
	// for a cd statement.
	Argv []string
	// DirAttr is where it runs, as a dir attribute (relative to the base
	// directory; "" is the base itself).
	DirAttr string
	Verdict
	// Files are the files its redirections open, resolved (reads and
	// writes; /dev/null is not one).
	Files []RedirFile
}

// RedirFile is a file a redirection opens.
type RedirFile struct {
	Redir parser.Redir
	Path  string // absolute, resolved; "" for /dev/null
}

// Label names the part for a report: "part 2 `tail -30`".
func (p *Part) Label(i int) string {
	return fmt.Sprintf("part %d `%s`", i+1, oneLine(p.Text))
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// DecideScript decides every part of s, which runs in dir (a dir
// attribute, as for [Gateway.Decide]). A `cd DIR` statement moves the
// parts after it to DIR, which must be a directory inside the root.
func (g *Gateway) DecideScript(s *parser.Script, dir string) *Composite {
	c := &Composite{Script: s, Decider: -1}
	cur := dir
	for pi, pl := range s.Pipelines {
		if pl.Cd != "" {
			next := joinDir(cur, pl.Cd)
			p := &Part{Pipeline: pi, Cmd: -1, Text: pl.Text, Argv: []string{"cd", pl.Cd}, DirAttr: cur}
			p.Verdict = g.decideCd(pl.Cd, next)
			c.Parts = append(c.Parts, p)
			cur = next
			continue
		}
		for ci, cmd := range pl.Cmds {
			c.Parts = append(c.Parts, g.decidePart(pi, ci, cmd, cur))
		}
	}
	if n := len(s.Pipelines); n > 0 && s.Pipelines[n-1].Cd != "" {
		// clada runs the line itself, so where it ends does not carry
		// over to the agent's shell: a line that ends elsewhere than it
		// started (`cd src`, `ls && cd sub`) would leave the model
		// believing it moved. One that comes back (`cd web && npm test
		// && cd ..`) is fine.
		p := c.Parts[len(c.Parts)-1]
		if p.Decision == Allow && !g.sameDirAttr(dir, cur) {
			p.Verdict = Verdict{Decision: Deny, Rule: rules.Cd, Word: s.Pipelines[n-1].Text,
				Reason: "`" + s.Pipelines[n-1].Text + "` ends the command line elsewhere than it started: clada runs the line itself, so the directory does not carry over to the next command",
				Advice: "write `cd DIR && COMMAND` in one command line, or name paths from the current directory"}
		}
	}
	c.settle()
	return c
}

// sameDirAttr reports whether two dir attributes name the same directory.
func (g *Gateway) sameDirAttr(a, b string) bool {
	da, err1 := g.resolver.Resolve(g.Root(), nonEmpty(g.inBase(a)))
	db, err2 := g.resolver.Resolve(g.Root(), nonEmpty(g.inBase(b)))
	return err1 == nil && err2 == nil && da == db
}

// settle sets the whole's verdict from its parts.
func (c *Composite) settle() {
	c.Decider = -1
	for i, p := range c.Parts {
		if p.Decision != Allow && (c.Decider < 0 || rank[p.Decision] > rank[c.Parts[c.Decider].Decision]) {
			c.Decider = i
		}
	}
	if c.Decider < 0 {
		c.Verdict = Verdict{Decision: Allow, Rule: rules.Composition,
			Reason: fmt.Sprintf("every part of the composition is allowed (%d parts)", len(c.Parts))}
		return
	}
	d := c.Parts[c.Decider]
	c.Verdict = Verdict{Decision: d.Decision, Rule: d.Rule, Word: d.Word, Advice: d.Advice, Missing: d.Missing,
		Reason: fmt.Sprintf("%s: %s", d.Label(c.Decider), d.Reason)}
	if d.Why != "" {
		c.Why = fmt.Sprintf("%s: %s", d.Label(c.Decider), d.Why)
	}
	if d.Decision == Ask {
		var asked []string
		for i, p := range c.Parts {
			if p.Decision == Ask {
				asked = append(asked, p.Label(i))
			}
		}
		if len(asked) > 1 {
			c.Why = fmt.Sprintf("%d parts need approval: %s", len(asked), strings.Join(asked, ", "))
			c.Reason = c.Why + "; " + c.Reason
		}
	}
}

// decideCd decides `cd ARG`, which moves to next (a dir attribute).
func (g *Gateway) decideCd(arg, next string) Verdict {
	d, err := g.resolver.Resolve(g.Root(), g.inBase(next))
	if err != nil {
		v := refused(err, arg)
		v.Advice = "cd only to directories inside the project"
		return v
	}
	if !g.isDir(d) {
		return Verdict{Decision: Deny, Rule: rules.DirNotFound, Word: arg,
			Reason: fmt.Sprintf("`cd %s`: %s is not a directory inside the project", arg, arg),
			Advice: "create the directory in a command of its own first, or fix the path"}
	}
	return Verdict{Decision: Allow, Rule: rules.Cd, Dir: d, Reason: "cd to a directory inside the project"}
}

// decidePart decides one command of a pipeline, run in dir: its words
// (globs expanded in that directory), behind `env` for its prefixes,
// and then its redirections.
func (g *Gateway) decidePart(pi, ci int, cmd *parser.Cmd, dir string) *Part {
	p := &Part{Pipeline: pi, Cmd: ci, Text: cmd.Text, DirAttr: dir}
	absDir, dv := g.partDir(dir)
	if dv != nil {
		p.Verdict = *dv
		return p
	}
	argv, err := g.expandWords(cmd.Words, absDir)
	if err != nil {
		word := ""
		var d *rules.Denied
		if errors.As(err, &d) {
			word = d.Word
		}
		p.Verdict = refused(err, word)
		return p
	}
	if len(cmd.Env) > 0 {
		argv = append(append([]string{"env"}, cmd.Env...), argv...)
	}
	p.Argv = argv
	p.Verdict = g.Decide(argv, dir)
	if p.Decision == Deny {
		return p
	}
	for _, r := range cmd.Redirs {
		if r.Kind == parser.RedirDup || r.Kind == parser.RedirData {
			continue
		}
		rv, f := g.decideRedir(r, absDir)
		p.Files = append(p.Files, f)
		p.Verdict = stricter(p.Verdict, rv)
		if p.Decision == Deny {
			return p
		}
	}
	return p
}

// partDir resolves a part's dir attribute; a verdict when it is refused.
func (g *Gateway) partDir(dir string) (string, *Verdict) {
	d := g.inBase(dir)
	if d == "" {
		return g.Root(), nil
	}
	abs, err := g.resolver.Resolve(g.Root(), d)
	if err != nil {
		v := refused(err, dir)
		return "", &v
	}
	if !g.isDir(abs) {
		return "", &Verdict{Decision: Deny, Rule: rules.DirNotFound, Word: dir,
			Reason: fmt.Sprintf("%q is not a directory inside the project", dir),
			Advice: "create the directory first, or fix the path"}
	}
	return abs, nil
}

// rank orders the decisions from the most lenient to the strictest.
var rank = map[Decision]int{Allow: 0, Ask: 1, Deny: 2}

// stricter keeps the command's verdict (what runs) and takes from r the
// decision and its reasons when r is stricter.
func stricter(v, r Verdict) Verdict {
	if rank[r.Decision] <= rank[v.Decision] {
		if r.Decision == Ask && v.Decision == Ask && r.Why != "" {
			v.Why += "; " + r.Why
			v.Reason = v.Why + ", so the person must approve it"
			v.Lost = append(v.Lost, r.Lost...)
		}
		return v
	}
	v.Decision, v.Rule, v.Word, v.Reason, v.Advice, v.Why = r.Decision, r.Rule, r.Word, r.Reason, r.Advice, r.Why
	v.Lost = append(v.Lost, r.Lost...)
	return v
}

// decideRedir decides a redirection's file, opened in absDir: a read is
// the command reading the file (confined; a secret is asked), a write is
// a write (confined, never in .git/ or .clada/; replacing an existing
// file only when git can restore it, else asked). /dev/null is always
// allowed.
func (g *Gateway) decideRedir(r parser.Redir, absDir string) (Verdict, RedirFile) {
	f := RedirFile{Redir: r}
	if r.Path == os.DevNull || r.Path == "/dev/null" {
		return Verdict{Decision: Allow}, f
	}
	write := r.Kind != parser.RedirRead
	if !write {
		g.resolver.CollectOutsideReads()
	}
	res, err := g.resolver.Confine(absDir, r.Path, write)
	var outside []specs.Path
	if !write {
		outside = g.resolver.OutsideReads()
	}
	if err != nil {
		v := refused(err, r.Path)
		v.Reason = fmt.Sprintf("`%s`: %s", r.Text, v.Reason)
		return v, f
	}
	f.Path = res
	if write {
		if fi, err := os.Stat(res); err == nil && fi.IsDir() {
			return Verdict{Decision: Deny, Rule: rules.RedirectTarget, Word: r.Path,
				Reason: fmt.Sprintf("`%s`: %s is a directory", r.Text, r.Path),
				Advice: "name a file"}, f
		}
	}
	v := Verdict{Decision: Allow}
	if r.Kind == parser.RedirWrite {
		if fi, err := os.Lstat(res); err == nil && fi.Mode().IsRegular() {
			v = g.restorable(v, []string{r.Text}, []specs.Destroyed{{Arg: r.Path, Path: res}})
		}
	}
	v = g.secret(v, []specs.Path{{Arg: r.Path, Resolved: res}})
	if v.Decision == Ask && v.Rule == rules.Secret {
		v.Reason = fmt.Sprintf("`%s` opens %s", r.Text, v.Reason)
	}
	if len(outside) > 0 {
		v = g.readOutside(r.Text, v, outside)
	}
	return v, f
}

// expandWords expands each word's glob in absDir with bash's rules:
// names sorted, a name starting with `.` only when the pattern's
// component does, a pattern that matches nothing kept as written.
// Every name a glob yields is a word like any other, so the specs
// check it as a path.
func (g *Gateway) expandWords(words []parser.Word, absDir string) ([]string, error) {
	argv := make([]string, 0, len(words))
	for _, w := range words {
		if w.Glob == "" {
			argv = append(argv, w.Value)
			continue
		}
		names, err := g.glob(w.Glob, absDir)
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			argv = append(argv, w.Value)
			continue
		}
		argv = append(argv, names...)
	}
	return argv, nil
}

// maxGlob caps the names one glob may yield.
const maxGlob = 10000

// glob matches pattern (path.Match syntax, `/`-separated, relative to
// absDir or absolute) component by component, as bash does. A pattern
// may not reach outside the root: each directory it reads is confined
// first.
func (g *Gateway) glob(pattern, absDir string) ([]string, error) {
	if strings.HasPrefix(pattern, "/") {
		return nil, &rules.Denied{Rule: rules.PathOutsideRoot, Word: pattern,
			Reason: fmt.Sprintf("the glob %s is an absolute path, outside the project root", pattern),
			Advice: "write globs relative to the project"}
	}
	comps := strings.Split(pattern, "/")
	type cand struct{ rel, abs string }
	cands := []cand{{"", absDir}}
	for i, comp := range comps {
		last := i == len(comps)-1
		var next []cand
		for _, c := range cands {
			if comp == "" {
				if last || i == 0 {
					next = append(next, cand{c.rel + "/", c.abs})
				}
				continue
			}
			if !hasMeta(comp) {
				lit := unescapeGlob(comp)
				rel := joinRel(c.rel, lit)
				abs := filepath.Join(c.abs, lit)
				if last {
					if _, err := os.Lstat(abs); err != nil {
						continue
					}
				}
				next = append(next, cand{rel, abs})
				continue
			}
			if _, err := g.resolver.Resolve(absDir, nonEmpty(c.rel)); err != nil {
				return nil, err
			}
			entries, err := os.ReadDir(c.abs)
			if err != nil {
				continue
			}
			for _, e := range entries {
				name := e.Name()
				if strings.HasPrefix(name, ".") && !strings.HasPrefix(comp, ".") && !strings.HasPrefix(comp, `\.`) {
					continue
				}
				if ok, _ := path.Match(bashBracket(comp), name); !ok {
					continue
				}
				if !last {
					if fi, err := os.Stat(filepath.Join(c.abs, name)); err != nil || !fi.IsDir() {
						continue
					}
				}
				next = append(next, cand{joinRel(c.rel, name), filepath.Join(c.abs, name)})
				if len(next) > maxGlob {
					return nil, &rules.Denied{Rule: rules.PathOutsideRoot, Word: pattern,
						Reason: fmt.Sprintf("the glob %s matches more than %d names", pattern, maxGlob),
						Advice: "narrow the glob, or use find"}
				}
			}
		}
		cands = next
	}
	out := make([]string, 0, len(cands))
	for _, c := range cands {
		out = append(out, c.rel)
	}
	slices.SortFunc(out, globOrder)
	return slices.Compact(out), nil
}

// globOrder sorts names as bash does in the C locale: by bytes.
func globOrder(a, b string) int { return strings.Compare(a, b) }

func nonEmpty(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	if strings.HasSuffix(rel, "/") {
		return rel + name
	}
	return rel + "/" + name
}

// hasMeta reports unescaped glob characters in a pattern component.
func hasMeta(comp string) bool {
	for i := 0; i < len(comp); i++ {
		switch comp[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescapeGlob removes the backslashes of a component without
// unescaped glob characters.
func unescapeGlob(comp string) string {
	if !strings.Contains(comp, `\`) {
		return comp
	}
	var b strings.Builder
	for i := 0; i < len(comp); i++ {
		if comp[i] == '\\' && i+1 < len(comp) {
			i++
		}
		b.WriteByte(comp[i])
	}
	return b.String()
}

// bashBracket writes bash's negated bracket `[!…]` as path.Match's `[^…]`.
func bashBracket(comp string) string {
	if !strings.Contains(comp, "[!") {
		return comp
	}
	var b strings.Builder
	for i := 0; i < len(comp); i++ {
		switch {
		case comp[i] == '\\' && i+1 < len(comp):
			b.WriteString(comp[i : i+2])
			i++
			continue
		case comp[i] == '[' && i+1 < len(comp) && comp[i+1] == '!':
			b.WriteString("[^")
			i++
			continue
		}
		b.WriteByte(comp[i])
	}
	return b.String()
}
