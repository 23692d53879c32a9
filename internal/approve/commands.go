package approve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/gofrs/flock"

	"github.com/clada/clada/internal/atomicfile"
	"github.com/clada/clada/internal/smallfile"
)

// Names of the files in the .clada directory that this file manages.
const (
	DirName          = ".clada"
	CommandsFile     = "commands.toml"
	LegacyFile       = "commands.json"
	lockFile         = "commands.toml.lock"
	migratedSuffix   = ".migrated"
	lockWait         = 10 * time.Second
	maxCommandsBytes = 4 << 20 // a permission file larger than this is a mistake
)

// ParseFunc turns a pattern into argv, refusing anything a shell would
// have to interpret. clada passes parser.Command.
type ParseFunc func(pattern string) ([]string, error)

// Pattern is one entry of the allowed or blocked list.
type Pattern struct {
	Text string   // the pattern as written in the file
	Argv []string // the words; ends in "*" when Prefix is set
	// Prefix is set when the pattern ended in a separate unquoted *:
	// then it matches any command that starts with Argv[:len(Argv)-1].
	// A pattern whose last word is a quoted '*' has Prefix false and
	// matches only a literal * argument.
	Prefix bool
	// Source is the file the pattern was read from ("" when made by
	// hand), which refusals and clada list name.
	Source string
}

// Match reports whether argv is matched by p: equal to p.Argv, or, for a
// prefix pattern, starting with every word of p.Argv before the final *
// and followed by zero or more further words.
func (p Pattern) Match(argv []string) bool {
	if len(p.Argv) == 0 {
		return false
	}
	if !p.Prefix {
		return slices.Equal(p.Argv, argv)
	}
	head := p.Argv[:len(p.Argv)-1]
	return len(argv) >= len(head) && slices.Equal(head, argv[:len(head)])
}

// same reports whether p and q are the same pattern, however quoted.
func (p Pattern) same(q Pattern) bool {
	return p.Prefix == q.Prefix && slices.Equal(p.Argv, q.Argv)
}

// ParsePattern turns pattern text into a [Pattern] with parse. A final
// unquoted * that is a word of its own makes a prefix pattern; parse never
// sees it as a glob. An empty pattern, or one that is only *, is an error.
func ParsePattern(text string, parse ParseFunc) (Pattern, error) {
	if parse == nil {
		return Pattern{}, errors.New("approve: nil ParseFunc")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return Pattern{}, errors.New("empty pattern: write the command to match, e.g. 'npm test'")
	}
	if !utf8.ValidString(text) {
		return Pattern{}, fmt.Errorf("pattern %q is not valid UTF-8", text)
	}
	if text == "*" {
		return Pattern{}, errors.New("pattern * would match every command: name the program, e.g. 'npm test *'")
	}
	if head, ok := strings.CutSuffix(text, "*"); ok {
		// The * is a separate unquoted word exactly when replacing it
		// with a quoted '*' adds one word "*" to the words before it;
		// inside quotes, a comment, after a backslash or glued to a word
		// it does not.
		before, err1 := parse(head)
		quoted, err2 := parse(head + "'*'")
		if err1 == nil && err2 == nil && len(before) > 0 &&
			slices.Equal(quoted, append(slices.Clip(before), "*")) {
			return Pattern{Text: text, Argv: quoted, Prefix: true}, nil
		}
	}
	argv, err := parse(text)
	if err != nil {
		return Pattern{}, err
	}
	if len(argv) == 0 {
		return Pattern{}, fmt.Errorf("pattern %q has no words", text)
	}
	return Pattern{Text: text, Argv: argv}, nil
}

// HostRule is one [[network]] entry of commands.toml: the hosts that a
// command the pattern matches may reach through clada's proxy (allow)
// and those it is refused without a question (deny), as the person
// answered always or never when clada asked while the command ran.
//
//	[[network]]
//	pattern = "npm install"
//	allow = ["npm.internal.example"]
//	deny = ["telemetry.example"]
//
// A host is a name or "*.example.com", as config.toml's hosts. The allow
// list of a file the person has not trusted is withheld; its deny list
// applies.
type HostRule struct {
	Pattern Pattern
	Allow   []string
	Deny    []string
}

func (r HostRule) same(q HostRule) bool {
	return r.Pattern.same(q.Pattern) && r.Pattern.Text == q.Pattern.Text &&
		slices.Equal(r.Allow, q.Allow) && slices.Equal(r.Deny, q.Deny)
}

// List names one of the two pattern lists.
type List string

// The two lists of commands.toml.
const (
	ListAllowed List = "allowed"
	ListBlocked List = "blocked"
)

// Commands is the content of .clada/commands.toml plus a legacy
// commands.json. A *Commands from [LoadCommands] is safe for concurrent
// use and live: [Commands.Refresh] reads the files again when another
// process changed them, so a resident clada (clada mcp) and a run that
// answered always decide with what is on disk. Allowed and Blocked are
// the lists as last read; read them directly only where nothing else
// uses the value.
type Commands struct {
	Path    string // the commands.toml path, also when only commands.json exists
	Allowed []Pattern
	Blocked []Pattern
	// Network are the hosts remembered for patterns ([[network]]): what
	// the person answered always or never when a running command wanted
	// to reach a host it was not granted.
	Network []HostRule

	mu    sync.RWMutex
	parse ParseFunc // nil for a Commands built by hand: Refresh does nothing
	stamp [2]fileStamp
	// trust drops the allowed patterns of a file the person has not
	// trusted (its blocked ones still apply); nil trusts every file.
	trust *TrustCheck
	// layers are the other scopes' patterns (managed, user, personal),
	// consulted with this file's: any block beats any allow.
	layers []*Commands
	scope  Scope
	// raw is what was read of each file (name → content; no entry: the
	// file did not exist), so that trust is judged on the very bytes the
	// patterns came from.
	raw map[string][]byte
}

// Scope is the scope of the file c was read from (project when loaded by
// [LoadCommands]).
func (c *Commands) Scope() Scope {
	if c.scope == "" {
		return ScopeProject
	}
	return c.scope
}

// AddLayer adds another scope's patterns to c: [Commands.MatchBlocked] and
// the allowed patterns consult them too, and Refresh reads them again.
func (c *Commands) AddLayer(l *Commands) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.layers = append(c.layers, l)
}

// Layers returns the other scopes' patterns, for clada list.
func (c *Commands) Layers() []*Commands {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.layers)
}

// LoadCommandsFile reads one scope's pattern file (commands.toml or
// commands.local.toml) at path; a missing file has no patterns. t (nil:
// trusted) decides trust as for the project's file.
func LoadCommandsFile(path string, scope Scope, parse ParseFunc, t *TrustCheck) (*Commands, error) {
	c := &Commands{Path: path, parse: parse, trust: t, scope: scope}
	c.stamp = [2]fileStamp{stampOf(path), {}}
	if err := readTOMLCommands(c, parse); err != nil {
		return nil, err
	}
	return c, nil
}

// fileStamp tells whether a file changed since it was read: another
// process replaces commands.toml with a rename (a new inode) and may
// write a legacy file in place (a new size or time).
type fileStamp struct {
	info fs.FileInfo // nil when the file did not exist
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi}
}

func (a fileStamp) same(b fileStamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return os.SameFile(a.info, b.info) && a.info.ModTime().Equal(b.info.ModTime()) && a.info.Size() == b.info.Size()
}

func (c *Commands) paths() [2]string {
	dir := filepath.Dir(c.Path)
	return [2]string{c.Path, filepath.Join(dir, LegacyFile)}
}

// Refresh reads the files again when they changed since they were read
// (their inode, size or modification time), and reports whether the lists
// changed. A file that no longer parses is returned as an error and the
// lists stay as they were: clada keeps deciding with what it last read
// and never rewrites the file.
func (c *Commands) Refresh() (changed bool, err error) {
	if c == nil {
		return false, nil
	}
	for _, l := range c.Layers() {
		ch, err := l.Refresh()
		if err != nil {
			return false, err
		}
		changed = changed || ch
	}
	if c.parse == nil {
		return changed, nil
	}
	paths := c.paths()
	if c.Scope() != ScopeProject {
		paths[1] = ""
	}
	now := [2]fileStamp{stampOf(paths[0]), stampOf(paths[1])}
	c.mu.RLock()
	same := now[0].same(c.stamp[0]) && now[1].same(c.stamp[1])
	c.mu.RUnlock()
	if same {
		return changed, nil
	}
	var fresh *Commands
	if c.Scope() == ScopeProject {
		fresh, _, err = readCommands(filepath.Dir(c.Path), c.parse, c.trust)
	} else {
		fresh, err = LoadCommandsFile(c.Path, c.scope, c.parse, c.trust)
	}
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	changed = changed || !samePatterns(c.Allowed, fresh.Allowed) || !samePatterns(c.Blocked, fresh.Blocked) ||
		!slices.EqualFunc(c.Network, fresh.Network, HostRule.same)
	c.Allowed, c.Blocked, c.Network, c.stamp = fresh.Allowed, fresh.Blocked, fresh.Network, fresh.stamp
	return changed, nil
}

// AllowedPatterns returns the allowed list as last read. The list is
// replaced, never changed in place, when the files are read again, so
// the caller may range over it while another goroutine refreshes.
func (c *Commands) AllowedPatterns() []Pattern {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	own, layers := c.Allowed, c.layers
	c.mu.RUnlock()
	if len(layers) == 0 {
		return own
	}
	all := slices.Clone(own)
	for _, l := range layers {
		all = append(all, l.AllowedPatterns()...)
	}
	return all
}

// MatchAllowed returns the first allowed pattern that matches argv.
func (c *Commands) MatchAllowed(argv []string) (Pattern, bool) {
	return matchFirst(c.AllowedPatterns(), argv)
}

// MatchBlocked returns the first blocked pattern that matches argv, in c's
// file or in a layer's.
func (c *Commands) MatchBlocked(argv []string) (Pattern, bool) {
	c.mu.RLock()
	p, ok := matchFirst(c.Blocked, argv)
	layers := c.layers
	c.mu.RUnlock()
	for _, l := range layers {
		if ok {
			break
		}
		p, ok = l.MatchBlocked(argv)
	}
	return p, ok
}

// MatchHosts returns the hosts remembered ([[network]]) for the patterns
// that match argv, in c's file and in its layers: those the command may
// reach (allow) and those it is refused without a question (deny). An
// untrusted file's allow lists are not among them.
func (c *Commands) MatchHosts(argv []string) (allow, deny []string) {
	if c == nil {
		return nil, nil
	}
	c.mu.RLock()
	rules, layers := c.Network, c.layers
	c.mu.RUnlock()
	for _, r := range rules {
		if r.Pattern.Match(argv) {
			allow = append(allow, r.Allow...)
			deny = append(deny, r.Deny...)
		}
	}
	for _, l := range layers {
		a, d := l.MatchHosts(argv)
		allow, deny = append(allow, a...), append(deny, d...)
	}
	return allow, deny
}

// Lists returns copies of the allowed and blocked patterns.
func (c *Commands) Lists() (allowed, blocked []Pattern) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.Allowed), slices.Clone(c.Blocked)
}

func matchFirst(ps []Pattern, argv []string) (Pattern, bool) {
	for _, p := range ps {
		if p.Match(argv) {
			return p, true
		}
	}
	return Pattern{}, false
}

// FileError reports a file in .clada that clada cannot use. clada never
// rewrites a file it could not read.
type FileError struct {
	Path string // the file
	Line int    // 1-based line, 0 when unknown
	Key  string // the TOML or JSON key concerned, "" when none
	Err  error  // what is wrong
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *FileError) Unwrap() error { return e.Err }

// LoadCommands reads root/.clada/commands.toml and the legacy
// root/.clada/commands.json. Missing files mean empty lists. It takes no
// lock: writers replace the file with a rename, so it is always whole.
func LoadCommands(root string, parse ParseFunc) (*Commands, error) {
	return LoadCommandsTrust(root, parse, nil)
}

// LoadCommandsTrust is [LoadCommands] with trust checked by t: the allowed
// patterns of a file t does not trust are dropped, now and at every
// [Commands.Refresh]; its blocked patterns apply.
func LoadCommandsTrust(root string, parse ParseFunc, t *TrustCheck) (*Commands, error) {
	dir := filepath.Join(root, DirName)
	c, _, err := readCommands(dir, parse, t)
	return c, err
}

// readCommands reads both files in dir; legacy reports whether
// commands.json exists. t checks trust (nil: all trusted).
func readCommands(dir string, parse ParseFunc, t *TrustCheck) (c *Commands, legacy bool, err error) {
	c = &Commands{Path: filepath.Join(dir, CommandsFile), parse: parse, trust: t}
	// Stamp before reading: a change made while reading is seen by the
	// next Refresh.
	paths := c.paths()
	c.stamp = [2]fileStamp{stampOf(paths[0]), stampOf(paths[1])}
	if err := readTOMLCommands(c, parse); err != nil {
		return nil, false, err
	}
	jsonPath := filepath.Join(dir, LegacyFile)
	data, err := readLimited(jsonPath)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	allowed, blocked, err := decodeJSONCommands(jsonPath, data, parse)
	if err != nil {
		return nil, false, err
	}
	c.keepRaw(LegacyFile, data)
	if len(allowed) > 0 && !t.Trusts(LegacyFile, data) {
		t.Withhold(LegacyFile)
		allowed = nil
	}
	setSource(allowed, jsonPath)
	setSource(blocked, jsonPath)
	c.Allowed = appendNew(c.Allowed, allowed...)
	c.Blocked = appendNew(c.Blocked, blocked...)
	return c, true, nil
}

func readLimited(path string) ([]byte, error) {
	data, err := smallfile.Read(path, maxCommandsBytes)
	if err != nil {
		return nil, err
	}
	if len(data) > maxCommandsBytes {
		return nil, &FileError{Path: path, Err: fmt.Errorf("file is larger than %d bytes", maxCommandsBytes)}
	}
	return data, nil
}

// appendNew appends the patterns of add that are not in ps yet.
func appendNew(ps []Pattern, add ...Pattern) []Pattern {
	for _, p := range add {
		if !slices.ContainsFunc(ps, p.same) {
			ps = append(ps, p)
		}
	}
	return ps
}

// stringList receives a TOML array of strings; a wrong type is reported
// by the decoder with the key's line.
type stringList []string

func (l *stringList) UnmarshalTOML(v any) error {
	out, err := decodeStrings(v, "an array of strings", "entry", nil)
	if err == nil {
		*l = out
	}
	return err
}

func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any, []map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("a %T", v)
	}
}

func readTOMLCommands(c *Commands, parse ParseFunc) error {
	data, err := readLimited(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	allowed, blocked, network, err := decodeTOMLFile(c.Path, data, parse)
	if err != nil {
		return err
	}
	c.keepRaw(filepath.Base(c.Path), data)
	if (len(allowed) > 0 || allowsHosts(network)) && !c.trust.Trusts(filepath.Base(c.Path), data) {
		c.trust.Withhold(filepath.Base(c.Path))
		allowed = nil
		for i := range network {
			network[i].Allow = nil
		}
	}
	setSource(allowed, c.Path)
	setSource(blocked, c.Path)
	for i := range network {
		network[i].Pattern.Source = c.Path
	}
	c.Allowed, c.Blocked, c.Network = allowed, blocked, network
	return nil
}

func allowsHosts(rules []HostRule) bool {
	return slices.ContainsFunc(rules, func(r HostRule) bool { return len(r.Allow) > 0 })
}

func decodeTOMLCommands(path string, data []byte, parse ParseFunc) (allowed, blocked []Pattern, err error) {
	allowed, blocked, _, err = decodeTOMLFile(path, data, parse)
	return allowed, blocked, err
}

// networkKey is commands.toml's array of [[network]] tables.
const networkKey = "network"

// hostRuleTOML is one [[network]] table as written.
type hostRuleTOML struct {
	Pattern *string    `toml:"pattern"`
	Allow   hostsValue `toml:"allow"`
	Deny    hostsValue `toml:"deny"`
}

func decodeTOMLFile(path string, data []byte, parse ParseFunc) (allowed, blocked []Pattern, network []HostRule, err error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, nil, nil, tomlFileError(path, "", err)
	}
	for _, key := range md.Keys() {
		if len(key) != 1 {
			continue // inside a table; the table itself is reported
		}
		name := key[0]
		if name == networkKey {
			if network, err = decodeNetwork(path, &md, top[name], parse); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		var dst *[]Pattern
		switch List(name) {
		case ListAllowed:
			dst = &allowed
		case ListBlocked:
			dst = &blocked
		default:
			return nil, nil, nil, keyError(path, &md, top[name], name,
				errors.New("unknown key: commands.toml holds only allowed, blocked and [[network]]"))
		}
		var list stringList
		if err := md.PrimitiveDecode(top[name], &list); err != nil {
			return nil, nil, nil, tomlFileError(path, name, err)
		}
		for _, text := range list {
			p, err := ParsePattern(text, parse)
			if err != nil {
				return nil, nil, nil, keyError(path, &md, top[name], name,
					fmt.Errorf("pattern %q: %w", text, err))
			}
			*dst = appendNew(*dst, p)
		}
	}
	return allowed, blocked, network, nil
}

// decodeNetwork reads the [[network]] tables: each a pattern, with allow
// and deny lists of hosts; two tables of the same pattern are merged.
func decodeNetwork(path string, md *toml.MetaData, prim toml.Primitive, parse ParseFunc) ([]HostRule, error) {
	var raw []map[string]toml.Primitive
	if md.Type(networkKey) != "ArrayHash" {
		return nil, keyError(path, md, prim, networkKey,
			errors.New("want [[network]] tables, each with a pattern and allow or deny lists of hosts"))
	}
	if err := md.PrimitiveDecode(prim, &raw); err != nil {
		return nil, keyError(path, md, prim, networkKey,
			errors.New("want [[network]] tables, each with a pattern and allow or deny lists of hosts"))
	}
	var rules []HostRule
	for i, tbl := range raw {
		var e hostRuleTOML
		e.Allow.dst, e.Deny.dst = new([]string), new([]string)
		for k, v := range tbl {
			var err error
			switch k {
			case "pattern":
				e.Pattern = new(string)
				err = md.PrimitiveDecode(v, e.Pattern)
			case "allow":
				err = md.PrimitiveDecode(v, e.Allow)
			case "deny":
				err = md.PrimitiveDecode(v, e.Deny)
			default:
				err = fmt.Errorf("unknown key %q: a [[network]] table holds pattern, allow and deny", k)
			}
			if err != nil {
				return nil, keyError(path, md, v, fmt.Sprintf("network[%d].%s", i+1, k), unwrapParse(err))
			}
		}
		if e.Pattern == nil {
			return nil, keyError(path, md, prim, networkKey, fmt.Errorf("table %d has no pattern", i+1))
		}
		p, err := ParsePattern(*e.Pattern, parse)
		if err != nil {
			return nil, keyError(path, md, prim, networkKey, fmt.Errorf("table %d: pattern %q: %w", i+1, *e.Pattern, err))
		}
		j := slices.IndexFunc(rules, func(r HostRule) bool { return r.Pattern.same(p) })
		if j < 0 {
			rules = append(rules, HostRule{Pattern: p})
			j = len(rules) - 1
		}
		rules[j].Allow = appendHosts(rules[j].Allow, *e.Allow.dst...)
		rules[j].Deny = appendHosts(rules[j].Deny, *e.Deny.dst...)
	}
	return rules, nil
}

// unwrapParse is the message of an UnmarshalTOML error without the
// decoder's position, which keyError adds back as a line.
func unwrapParse(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return errors.New(pe.Message)
	}
	return err
}

// appendHosts appends the hosts of add that are not in hs yet.
func appendHosts(hs []string, add ...string) []string {
	for _, h := range add {
		if !slices.Contains(hs, h) {
			hs = append(hs, h)
		}
	}
	return hs
}

// lineProbe makes the TOML decoder report the position of a key: its
// UnmarshalTOML fails, and the decoder wraps that failure in a
// toml.ParseError carrying the key's line.
type lineProbe struct{ err error }

func (p lineProbe) UnmarshalTOML(any) error { return p.err }

// keyError returns a FileError for key, with the key's line.
func keyError(path string, md *toml.MetaData, prim toml.Primitive, key string, err error) error {
	fe := &FileError{Path: path, Key: key, Err: err}
	var pe toml.ParseError
	if errors.As(md.PrimitiveDecode(prim, lineProbe{err}), &pe) {
		fe.Line = pe.Position.Line
	}
	return fe
}

// tomlFileError turns a decoder error about key ("" for a syntax error)
// into a FileError.
func tomlFileError(path, key string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &FileError{Path: path, Line: pe.Position.Line, Key: key, Err: errors.New(pe.Message)}
	}
	return &FileError{Path: path, Key: key, Err: err}
}

// decodeJSONCommands reads the legacy {"allowed": [...], "blocked": [...]}
// token by token, so that every error has the line of its key.
func decodeJSONCommands(path string, data []byte, parse ParseFunc) (allowed, blocked []Pattern, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(key string, off int64, err error) error {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.Offset
			err = fmt.Errorf("want an array of strings, found a JSON %s", te.Value)
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			off, err = int64(len(data)), errors.New("unexpected end of file")
		}
		return &FileError{Path: path, Line: lineAt(data, off), Key: key, Err: err}
	}
	if tok, err := dec.Token(); err != nil {
		return nil, nil, fail("", dec.InputOffset(), err)
	} else if tok != json.Delim('{') {
		return nil, nil, fail("", dec.InputOffset(), errors.New("want a JSON object"))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fail("", dec.InputOffset(), err)
		}
		key, _ := tok.(string)
		keyOff := dec.InputOffset()
		var dst *[]Pattern
		switch List(key) {
		case ListAllowed:
			dst = &allowed
		case ListBlocked:
			dst = &blocked
		default:
			return nil, nil, fail(key, keyOff, errors.New("unknown key: commands.json holds only allowed and blocked"))
		}
		var texts []string
		if err := dec.Decode(&texts); err != nil {
			return nil, nil, fail(key, keyOff, err)
		}
		for _, text := range texts {
			p, err := ParsePattern(text, parse)
			if err != nil {
				return nil, nil, fail(key, keyOff, fmt.Errorf("pattern %q: %w", text, err))
			}
			*dst = appendNew(*dst, p)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, fail("", dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, fail("", dec.InputOffset(), errors.New("text after the JSON object"))
	}
	return allowed, blocked, nil
}

// lineAt returns the 1-based line of byte offset off in data; 0 when off
// is negative.
func lineAt(data []byte, off int64) int {
	if off < 0 {
		return 0
	}
	off = min(off, int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// Add adds pattern to list in root/.clada/commands.toml and returns the
// path of that file. It validates the pattern with parse, creates .clada
// when needed, and under the lock re-reads the file, so entries added
// meanwhile by other processes are kept. A pattern already in the list
// (same argv, however quoted) is not added twice; the same pattern in the
// other list is removed from there. A file that does not parse is
// returned as an error and left untouched.
func Add(root string, list List, pattern string, parse ParseFunc) (path string, err error) {
	path, _, err = AddChanged(root, list, pattern, parse)
	return path, err
}

// AddChanged is [Add], also reporting whether the file changed: false when
// the same pattern (the same argv, however quoted) was already in list.
func AddChanged(root string, list List, pattern string, parse ParseFunc) (path string, changed bool, err error) {
	if list != ListAllowed && list != ListBlocked {
		return "", false, fmt.Errorf("approve: unknown list %q", list)
	}
	p, err := ParsePattern(pattern, parse)
	if err != nil {
		return "", false, fmt.Errorf("pattern %q: %w", strings.TrimSpace(pattern), err)
	}
	path, err = update(root, parse, func(c *Commands) bool {
		dst, other := &c.Allowed, &c.Blocked
		if list == ListBlocked {
			dst, other = other, dst
		}
		changed = false
		if n := len(*other); n > 0 {
			*other = slices.DeleteFunc(*other, p.same)
			changed = len(*other) != n
		}
		if !slices.ContainsFunc(*dst, p.same) {
			*dst = append(*dst, p)
			changed = true
		}
		return changed
	})
	if err != nil {
		return "", false, err
	}
	return path, changed, nil
}

// Remove removes pattern from both lists, and the hosts remembered for it
// ([[network]]), matching by argv so that quoting does not matter, and
// returns the commands.toml path and whether anything was removed.
// Nothing is written when nothing matched.
func Remove(root string, pattern string, parse ParseFunc) (path string, removed bool, err error) {
	p, err := ParsePattern(pattern, parse)
	if err != nil {
		return "", false, fmt.Errorf("pattern %q: %w", strings.TrimSpace(pattern), err)
	}
	path, err = update(root, parse, func(c *Commands) bool {
		na, nb, nn := len(c.Allowed), len(c.Blocked), len(c.Network)
		c.Allowed = slices.DeleteFunc(c.Allowed, p.same)
		c.Blocked = slices.DeleteFunc(c.Blocked, p.same)
		c.Network = slices.DeleteFunc(c.Network, func(r HostRule) bool { return r.Pattern.same(p) })
		removed = len(c.Allowed) != na || len(c.Blocked) != nb || len(c.Network) != nn
		return removed
	})
	return path, removed, err
}

// AddHost remembers host for pattern in root/.clada/commands.toml's
// [[network]]: in its allow list (allow true: the person answered always)
// or its deny list (never), and out of the other one. It locks, re-reads
// and keeps trust as [Add] does, and returns the file's path and whether
// it changed.
func AddHost(root, pattern, host string, allow bool, parse ParseFunc) (path string, changed bool, err error) {
	p, err := ParsePattern(pattern, parse)
	if err != nil {
		return "", false, fmt.Errorf("pattern %q: %w", strings.TrimSpace(pattern), err)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if err := checkHostPattern(host); err != nil {
		return "", false, fmt.Errorf("host %q: %v", host, err)
	}
	path, err = update(root, parse, func(c *Commands) bool {
		i := slices.IndexFunc(c.Network, func(r HostRule) bool { return r.Pattern.same(p) })
		if i < 0 {
			c.Network = append(c.Network, HostRule{Pattern: p})
			i = len(c.Network) - 1
		}
		r := &c.Network[i]
		dst, other := &r.Allow, &r.Deny
		if !allow {
			dst, other = other, dst
		}
		changed = false
		if n := len(*other); n > 0 {
			*other = slices.DeleteFunc(*other, func(h string) bool { return h == host })
			changed = len(*other) != n
		}
		if !slices.Contains(*dst, host) {
			*dst = append(*dst, host)
			changed = true
		}
		return changed
	})
	if err != nil {
		return "", false, err
	}
	return path, changed, nil
}

// sameRules compares [[network]] lists, an entry with neither hosts
// counting as absent (encodeCommands leaves it out).
func sameRules(a, b []HostRule) bool {
	keep := func(rs []HostRule) []HostRule {
		return slices.DeleteFunc(slices.Clone(rs), func(r HostRule) bool { return len(r.Allow) == 0 && len(r.Deny) == 0 })
	}
	return slices.EqualFunc(keep(a), keep(b), func(r, q HostRule) bool {
		return r.Pattern.same(q.Pattern) && slices.Equal(r.Allow, q.Allow) && slices.Equal(r.Deny, q.Deny)
	})
}

func samePatterns(a, b []Pattern) bool {
	return slices.EqualFunc(a, b, func(p, q Pattern) bool { return p.Text == q.Text && p.same(q) })
}

// update runs change on the current lists under the lock and writes the
// result when change reports a change.
func update(root string, parse ParseFunc, change func(*Commands) bool) (string, error) {
	dir := filepath.Join(root, DirName)
	path := filepath.Join(dir, CommandsFile)
	if err := EnsureDir(root); err != nil {
		return "", err
	}
	lock := flock.New(filepath.Join(dir, lockFile))
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	ok, err := lock.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil || !ok {
		if err == nil {
			err = ctx.Err()
		}
		return "", fmt.Errorf("locking %s: %w", lock.Path(), err)
	}
	defer lock.Unlock()

	// Every pattern, trusted or not, is kept in the file.
	c, legacy, err := readCommands(dir, parse, nil)
	if err != nil {
		return "", err
	}
	if !change(c) {
		return path, nil
	}
	// The person answered, or ran clada allow, block or forget: what
	// clada writes stays trusted when what it replaces was (or there was
	// nothing). A file that was not trusted stays so: recording it now
	// would trust patterns nobody reviewed.
	keepTrust := c.trustedRaw(root, CommandsFile) && c.trustedRaw(root, LegacyFile)
	data := encodeCommands(c)
	// Never write a file clada could not read back the same.
	if a, b, n, err := decodeTOMLFile(path, data, parse); err != nil ||
		!samePatterns(a, c.Allowed) || !samePatterns(b, c.Blocked) || !sameRules(n, c.Network) {
		return "", fmt.Errorf("approve: internal error: %s would not read back as written (%v)", path, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return "", err
	}
	if keepTrust {
		if err := RecordTrust(root, map[string]string{CommandsFile: Hash(data), LegacyFile: ""}, false); err != nil {
			return "", fmt.Errorf("%s was written, but its trust could not be recorded: %w", path, err)
		}
	}
	if legacy {
		// The TOML file now holds every legacy entry; reading the JSON
		// file too would bring back entries that were just removed.
		jsonPath := filepath.Join(dir, LegacyFile)
		if err := os.Rename(jsonPath, jsonPath+migratedSuffix); err != nil {
			return "", fmt.Errorf("moving %s aside after migrating it to %s: %w", jsonPath, path, err)
		}
	}
	return path, nil
}

const commandsHeader = `# clada: commands run without asking (allowed) or never run (blocked).
# A pattern is a command line; a last word * (unquoted) also matches any
# further arguments: "npm test *" matches "npm test" and "npm test -v".
# clada rewrites this file (clada allow, block, forget; answering always or
# never): entries keep their order, other comments are not kept.
# [[network]] tables are the hosts a command matching their pattern may
# (allow) or may not (deny) reach through clada's proxy, as answered when
# clada asked while it ran.
`

func setSource(ps []Pattern, path string) {
	for i := range ps {
		ps[i].Source = path
	}
}

// ParseCommands reads data, the content of commands.toml (or, when
// legacy, commands.json) at path, into its allowed and blocked patterns.
func ParseCommands(path string, data []byte, legacy bool, parse ParseFunc) (allowed, blocked []Pattern, err error) {
	if legacy {
		return decodeJSONCommands(path, data, parse)
	}
	return decodeTOMLCommands(path, data, parse)
}

// ParseNetwork reads the [[network]] tables of data, the content of
// commands.toml at path (a legacy commands.json has none).
func ParseNetwork(path string, data []byte, legacy bool, parse ParseFunc) ([]HostRule, error) {
	if legacy {
		return nil, nil
	}
	_, _, network, err := decodeTOMLFile(path, data, parse)
	return network, err
}

func (c *Commands) keepRaw(name string, data []byte) {
	if c.raw == nil {
		c.raw = map[string][]byte{}
	}
	c.raw[name] = data
}

// trustedRaw reports whether the file name, as c read it, was absent or
// trusted: judged on the bytes the patterns came from, so that a file
// swapped after it was read cannot be trusted by clada's write.
func (c *Commands) trustedRaw(root, name string) bool {
	data, ok := c.raw[name]
	if !ok {
		return true
	}
	m, err := Trusted(root)
	return err == nil && m[name] == Hash(data)
}

// encodeCommands writes c in the canonical form.
func encodeCommands(c *Commands) []byte {
	var b bytes.Buffer
	b.WriteString(commandsHeader)
	for _, l := range []struct {
		name string
		ps   []Pattern
	}{{"allowed", c.Allowed}, {"blocked", c.Blocked}} {
		fmt.Fprintf(&b, "\n%s = [\n", l.name)
		for _, p := range l.ps {
			fmt.Fprintf(&b, "  %s,\n", tomlQuote(p.Text))
		}
		b.WriteString("]\n")
	}
	for _, r := range c.Network {
		if len(r.Allow) == 0 && len(r.Deny) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n[[network]]\npattern = %s\n", tomlQuote(r.Pattern.Text))
		for _, l := range []struct {
			name  string
			hosts []string
		}{{"allow", r.Allow}, {"deny", r.Deny}} {
			if len(l.hosts) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%s = [", l.name)
			for i, h := range l.hosts {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(tomlQuote(h))
			}
			b.WriteString("]\n")
		}
	}
	return b.Bytes()
}

// tomlQuote returns s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeAtomic replaces path with data (atomicfile), synced to disk and
// keeping the file's permissions (0644 for a new file). A symbolic link
// at path is replaced by the file.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, atomicfile.Options{Perm: atomicfile.Perm(path, 0o644), Sync: true}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
