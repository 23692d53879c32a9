package specs

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/BurntSushi/toml"

	"github.com/clada/clada/internal/smallfile"
)

// The embedded specs: default.toml (pack "default") and one file per
// pack under packs/ (packs/go.toml is pack "go"), so that adding a tool
// touches one file. A command is in exactly one pack. They are strings,
// which the start of every clada splits: embed.FS.ReadFile would copy a
// file to the heap (~100 µs at start for the 40 KB, page faults
// included), while a string is the binary's own read-only data.
// TestEmbeddedList keeps this list equal to the files.
var (
	//go:embed default.toml
	defaultTOML string
	//go:embed packs/dart.toml
	packDart string
	//go:embed packs/dotnet.toml
	packDotnet string
	//go:embed packs/elixir.toml
	packElixir string
	//go:embed packs/files.toml
	packFiles string
	//go:embed packs/go.toml
	packGo string
	//go:embed packs/jstools.toml
	packJstools string
	//go:embed packs/jvm.toml
	packJvm string
	//go:embed packs/make.toml
	packMake string
	//go:embed packs/node.toml
	packNode string
	//go:embed packs/python.toml
	packPython string
	//go:embed packs/pytools.toml
	packPytools string
	//go:embed packs/rust.toml
	packRust string
	//go:embed packs/swift.toml
	packSwift string
	//go:embed packs/system.toml
	packSystem string
	//go:embed packs/text.toml
	packText string
)

// embeddedFiles are the embedded specs in the order they are split:
// default.toml, then the packs by name.
var embeddedFiles = [...]struct{ name, text string }{
	{"default.toml", defaultTOML},
	{"packs/dart.toml", packDart},
	{"packs/dotnet.toml", packDotnet},
	{"packs/elixir.toml", packElixir},
	{"packs/files.toml", packFiles},
	{"packs/go.toml", packGo},
	{"packs/jstools.toml", packJstools},
	{"packs/jvm.toml", packJvm},
	{"packs/make.toml", packMake},
	{"packs/node.toml", packNode},
	{"packs/python.toml", packPython},
	{"packs/pytools.toml", packPytools},
	{"packs/rust.toml", packRust},
	{"packs/swift.toml", packSwift},
	{"packs/system.toml", packSystem},
	{"packs/text.toml", packText},
}

// ValueType is the type of a flag's value or of a find test's argument.
type ValueType string

// Value types. Keep in sync with the header of default.toml and doc.go.
const (
	TypeBool    ValueType = "bool"    // takes no value
	TypeInt     ValueType = "int"     // [+-]digits or 0xHEX, then at most 3 unit letters (5, -5, +3, 10K, 0x1f)
	TypeString  ValueType = "string"  // any value, never opened as a file
	TypeOpt     ValueType = "opt"     // optional value, only attached (--color, --color=auto, -I, -Iseconds)
	TypePath    ValueType = "path"    // a file the program reads: confined to the root
	TypeOutPath ValueType = "outpath" // a file the program writes: confined, never in .git/ or .clada/
	TypeDate    ValueType = "date"    // a date string (date -d): any value without TZ= (any case), which opens a time zone file
)

// UnmarshalText validates a type name, so a bad one is reported with the
// line and key by the TOML decoder.
func (t *ValueType) UnmarshalText(b []byte) error {
	switch v := ValueType(b); v {
	case TypeBool, TypeInt, TypeString, TypeOpt, TypePath, TypeOutPath, TypeDate:
		*t = v
		return nil
	}
	return fmt.Errorf("unknown value type %q (want bool, int, string, date, opt, path or outpath)", string(b))
}

// Writes says which path operands a command writes.
type Writes string

// Writes modes.
const (
	WritesNone Writes = "none" // reads only (the zero value means none too)
	WritesAll  Writes = "all"  // every path operand is written (rm, touch, mkdir, mv)
	WritesLast Writes = "last" // the last of two or more path operands is written (cp)
)

// UnmarshalTOML validates a writes mode.
func (w *Writes) UnmarshalTOML(d any) error {
	v, ok := d.(string)
	if !ok {
		return fmt.Errorf("want none, all or last, not %s", tomlType(d))
	}
	return w.unmarshalText([]byte(v))
}

func (w *Writes) unmarshalText(b []byte) error {
	switch v := Writes(b); v {
	case WritesNone, WritesAll, WritesLast:
		*w = v
		return nil
	}
	return fmt.Errorf("unknown writes mode %q (want none, all or last)", string(b))
}

// ShortValues says how a short flag that takes a value gets it.
type ShortValues string

// ShortValues modes.
const (
	ShortAttached ShortValues = "getopt"   // getopt: -n5, -n 5, -an5 (the zero value means getopt too)
	ShortSeparate ShortValues = "separate" // the flag ends its word and the value is the next word: -L 3, -aL 3 (tree)
)

// UnmarshalTOML validates a short_values mode.
func (s *ShortValues) UnmarshalTOML(d any) error {
	v, ok := d.(string)
	if !ok {
		return fmt.Errorf("want getopt or separate, not %s", tomlType(d))
	}
	return s.unmarshalText([]byte(v))
}

func (s *ShortValues) unmarshalText(b []byte) error {
	switch v := ShortValues(b); v {
	case ShortAttached, ShortSeparate:
		*s = v
		return nil
	}
	return fmt.Errorf("unknown short_values mode %q (want getopt or separate)", string(b))
}

// fileSpec is one [commands.NAME] table as written in TOML. It never
// leaves this package. Every field has a type with UnmarshalTOML, so that a
// wrong value is reported by the decoder with its line and key.
type fileSpec struct {
	Description      tomlString  `toml:"description"`
	Flags            typeMap     `toml:"flags"`
	Forbid           textMap     `toml:"forbid"`
	Positionals      *tomlInt    `toml:"positionals"`
	PositionalPrefix tomlString  `toml:"positional_prefix"`
	PatternFlags     tomlStrings `toml:"pattern_flags"`
	MaxPaths         *tomlInt    `toml:"max_paths"`
	ExactPaths       *tomlInt    `toml:"exact_paths"`
	Writes           Writes      `toml:"writes"`
	Destroys         Writes      `toml:"destroys"`
	EditFlags        tomlStrings `toml:"edit_flags"`
	TreeFlags        tomlStrings `toml:"tree_flags"`
	BackupFlags      tomlStrings `toml:"backup_flags"`
	ExtractFlags     tomlStrings `toml:"extract_flags"`
	ExtractKeep      tomlStrings `toml:"extract_keep"`
	TargetDir        tomlBool    `toml:"target_dir"`
	Tests            typeMap     `toml:"tests"`
	NumberOption     tomlBool    `toml:"number_option"`
	ShortValues      ShortValues `toml:"short_values"`
	Harden           tomlStrings `toml:"harden"`
	Network          tomlBool    `toml:"network"`
	Caches           tomlStrings `toml:"caches"`
	CacheQuery       tomlStrings `toml:"cache_query"`
	WalkTarget       tomlStrings `toml:"walk_target"`
	ParentsFlags     tomlStrings `toml:"parents_flags"`
	Clusters         *tomlBool   `toml:"clusters"`
	Permute          *tomlBool   `toml:"permute"`
	TargetSelf       tomlStrings `toml:"target_self"`
	Allow            tomlStrings `toml:"allow"`
	Deny             tomlStrings `toml:"deny"`
	ForbidOperands   textMap     `toml:"forbid_operands"`
	SlashPaths       tomlBool    `toml:"slash_paths"`
	DotPaths         tomlBool    `toml:"dot_paths"`
	BSDFlags         bsdMap      `toml:"bsd_flags"`
	BSDLong          *tomlBool   `toml:"bsd_long"`
	BSDForbid        textMap     `toml:"bsd_forbid"`
	BSDAllow         tomlStrings `toml:"bsd_allow"`
	BSDDeny          tomlStrings `toml:"bsd_deny"`
	Portable         tomlBool    `toml:"portable"`
	// Fields of project runners and of the tools added with the packs
	// (docs/specs.md).
	Ask         tomlBool    `toml:"ask"`
	AskReason   tomlString  `toml:"ask_reason"`
	AskFlags    textMap     `toml:"ask_flags"`
	AskOperands tomlString  `toml:"ask_operands"`
	DryFlags    tomlStrings `toml:"dry_flags"`
	Asked       tomlStrings `toml:"asked"`
	Sub         subMap      `toml:"sub"`
	Aliases     tomlStrings `toml:"aliases"`
	Bundled     tomlBool    `toml:"bundled"`
	WritesWith  tomlStrings `toml:"writes_with"`
	NoRemote    tomlBool    `toml:"no_remote"`
	Guard       tomlStrings `toml:"guard"`
	GuardProbe  tomlStrings `toml:"guard_probe"`
	GuardRefuse tomlStrings `toml:"guard_refuse"`
	ModeOperand tomlBool    `toml:"mode_operand"`
	ModeFlags   tomlStrings `toml:"mode_flags"`
	CopiesMode  tomlStrings `toml:"copies_mode"`
	Link        tomlBool    `toml:"link"`
	ExecActions tomlStrings `toml:"exec_actions"`
	GoFlags     tomlBool    `toml:"go_flags"`
	ChdirFlags  tomlStrings `toml:"chdir_flags"`
	Env         tomlStrings `toml:"env"`
	ScriptAsks  textMap     `toml:"script_asks"`
	ScriptCheck tomlString  `toml:"script_check"`
	NoHelp      tomlBool    `toml:"no_help"`
	WalkLinks   tomlStrings `toml:"walk_links"`

	// Operands that make a reader asked (printenv).
	PlainOperands tomlString `toml:"plain_operands"`
	AskBare       tomlString `toml:"ask_bare"`
	// Flags that make the operands checksum lists (sha256sum -c).
	CheckLists tomlStrings `toml:"check_lists"`
}

// subMap is the sub table of a spec: one spec per subcommand.
type subMap map[string]fileSpec

func tomlType(d any) string {
	switch d.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case bool:
		return "a boolean"
	case float64:
		return "a float"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", d)
}

type tomlString string

func (t *tomlString) UnmarshalTOML(d any) error {
	v, ok := d.(string)
	if !ok {
		return fmt.Errorf("want a string, not %s", tomlType(d))
	}
	*t = tomlString(v)
	return nil
}

type tomlBool bool

func (t *tomlBool) UnmarshalTOML(d any) error {
	v, ok := d.(bool)
	if !ok {
		return fmt.Errorf("want true or false, not %s", tomlType(d))
	}
	*t = tomlBool(v)
	return nil
}

type tomlInt int

func (t *tomlInt) UnmarshalTOML(d any) error {
	v, ok := d.(int64)
	if !ok {
		return fmt.Errorf("want an integer, not %s", tomlType(d))
	}
	if v < -1<<20 || v > 1<<20 {
		return fmt.Errorf("%d is out of range", v)
	}
	*t = tomlInt(v)
	return nil
}

type tomlStrings []string

func (t *tomlStrings) UnmarshalTOML(d any) error {
	arr, ok := d.([]any)
	if !ok {
		return fmt.Errorf("want an array of strings, not %s", tomlType(d))
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return fmt.Errorf("element %d: want a string, not %s", i+1, tomlType(e))
		}
		out = append(out, s)
	}
	*t = out
	return nil
}

type textMap map[string]string

func (t *textMap) UnmarshalTOML(d any) error {
	m, ok := d.(map[string]any)
	if !ok {
		return fmt.Errorf("want a table of strings, not %s", tomlType(d))
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return fmt.Errorf("%q: want a string, not %s", k, tomlType(e))
		}
		out[k] = s
	}
	*t = out
	return nil
}

type typeMap map[string]ValueType

func (t *typeMap) UnmarshalTOML(d any) error {
	m, ok := d.(map[string]any)
	if !ok {
		return fmt.Errorf("want a table of value types, not %s", tomlType(d))
	}
	out := make(map[string]ValueType, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		if !ok {
			return fmt.Errorf("%q: want a value type, not %s", k, tomlType(m[k]))
		}
		var vt ValueType
		if err := vt.UnmarshalText([]byte(s)); err != nil {
			return fmt.Errorf("%q: %v", k, err)
		}
		out[k] = vt
	}
	*t = out
	return nil
}

type specFile struct {
	Commands map[string]fileSpec `toml:"commands"`
}

// spec is a validated command spec.
type spec struct {
	name             string
	source           string // file the spec came from ("default.toml" or a path)
	label            string // how `clada specs` names that file (".clada/specs.toml"); "" for source
	description      string
	flags            map[string]ValueType
	forbid           map[string]string
	positionals      int // leading non-path operands; -1: every operand
	positionalPrefix string
	patternFlags     map[string]bool
	maxPaths         int // -1: unlimited
	exactPaths       int // -1: not set
	writes           Writes
	destroys         Writes   // which path operands are deleted or replaced (see destroy.go)
	editFlags        []string // flags that make every path operand edited in place (sed -i)
	treeFlags        []string // outpath flags whose value is removed and made anew (pytest --basetemp)
	backupFlags      []string // flags that back up each replaced NAME as NAME~ first (cp -b)
	extractFlags     []string // flags that write files named by the input into the working directory (tar -x)
	extractKeep      []string // flags with which such an extraction writes no file (tar -O)
	targetDir        bool
	tests            map[string]ValueType // nil unless find-style
	numberOption     bool
	shortValues      ShortValues
	harden           []string
	network          bool     // the command gets the network under the sandbox
	caches           []string // directories it may write under the sandbox, as written (~/…, $NAME/…, /…)
	cacheQuery       []string // arguments to the program that print more of them, one per line
	walkTarget       []string // flags that make the copy recursive (cp -r)
	parentsFlags     []string // flags that copy a source to DEST/SRC, its whole path (cp --parents)
	walkLinks        []string // name suffixes of the symlinks the program follows in a directory operand (gofmt: .go)
	clusters         bool     // short flags combine (-la); false: every word is one flag (xxd)
	permute          bool     // flags may follow operands; false: the first operand ends the flags (xxd)
	targetSelf       []string // flags that make the last path the destination itself (-T)
	allow, deny      []string

	pack        string // the embedded pack ("default", "go"); "" for a user's file
	ask         bool   // a command that fits is asked (project runners)
	askReason   string
	askFlags    map[string]string // flag → why it makes the command asked
	askOperands string            // non-empty: an operand makes the command asked, for this reason
	dryFlags    []string          // with one of these an ask = true command only prints what it would do: allowed
	asked       []string          // examples that must be asked
	subs        map[string]*spec  // subcommands by name and alias; nil when none
	subNames    []string          // the subcommands' names, sorted, without aliases
	aliases     []string
	bundled     bool        // the first word, without a dash, is a bundle of short flags (tar cf)
	writesWith  []string    // outpath flags are written only with one of these flags (tar -f with -c); otherwise read
	noRemote    bool        // a path with ':' before its first '/' names another host: denied
	guard       []string    // arguments that keep the program from running programs or writing files (sed --sandbox)
	guardProbe  []string    // arguments with which the installed program must exit 0 for guard to be used
	guardRefuse []string    // arguments (a script the guard forbids) with which it must fail
	modeOperand bool        // the first operand is a file mode (chmod): setuid and setgid are denied
	modeFlags   []string    // string flags whose value is a file mode (mkdir -m), checked as modeOperand's
	copiesMode  []string    // flags that copy the mode of the files read (cp -p, chmod --reference): no setuid or setgid source
	link        bool        // ln: targets resolve from the link's directory with -s; all confined and written
	execActions []string    // find: actions that run a command up to ";" or "+" (asked; see Verdict.Inner)
	goFlags     bool        // flags as Go's flag package reads them: -name, --name, -name=value; never combined
	chdirFlags  []string    // flags whose directory the program changes to before it opens the operands (tar -C)
	env         []string    // NAME=VALUE entries the program runs with (less: LESSSECURE=1)
	scriptAsks  []scriptAsk // patterns of the script (jq filter, awk program) that make the command asked
	scriptCheck string      // "awk": the program is parsed and decided by clada's awk checker (awkcheck.go)
	noHelp      bool        // a lone --help or --version is not special: the program loads project code for it (pytest)

	forbidOperands map[string]string // operand prefix → why an operand starting with it is denied (tail +1f)
	slashPaths     bool              // a non-path operand holding / is a path the program looks at (which /x)
	dotPaths       bool              // a path operand must start with . or be absolute (go fmt ./src, never an import path)

	// The BSD dialect (dialect.go): bsd is the spec applied there, nil
	// on that spec itself; bsdOrder refuses an option after the first
	// operand. bsdFlags and bsdLong are bsd_flags and bsd_long as
	// written, for Print.
	bsd               *spec
	bsdOrder          bool
	bsdFlags          map[string]string
	bsdForbid         map[string]string
	bsdLong           bool
	bsdAllow, bsdDeny []string

	plainOperands *regexp.Regexp // operands that askOperands does not ask about (printenv HOME)
	askBare       string         // non-empty: the command without an operand is asked, for this reason
	checkLists    []string       // flags that make every operand a checksum list whose names are read too (sha256sum -c)
}

// Set is the effective set of command specs: the defaults plus the user's
// overrides. A Set is safe for concurrent use; it caches, per name, where
// exec.LookPath found the program.
type Set struct {
	specs map[string]*spec // a file's own specs; for Load, the user's overrides
	base  *lazySpecs       // the embedded defaults under specs; nil for LoadFile

	mu     sync.Mutex
	path   map[string]lookResult
	guards map[string]bool // spec name → its guard works with the installed program (forms.go)

	gitConf gitConfCache // see gitinclude.go

	dialect Dialect // how the programs parse their command lines; see ForOS
}

type lookResult struct {
	path string
	err  error
}

func newSet(m map[string]*spec, base *lazySpecs) *Set {
	if m == nil {
		m = map[string]*spec{}
	}
	return &Set{specs: m, base: base, path: map[string]lookResult{}, guards: map[string]bool{}, dialect: DialectOf(HostOS())}
}

// spec returns the spec of name: the set's own, else the default.
func (s *Set) spec(name string) (*spec, error) {
	if sp, ok := s.specs[name]; ok {
		return sp, nil
	}
	if s.base == nil {
		return nil, nil
	}
	return s.base.get(name)
}

// lazySpecs is the embedded packs split into one TOML document per
// command and decoded on first use. Decoding every file costs ~6 ms at
// every start (bench/README.md), while one run usually needs a handful of
// specs, and `clada check -- git status` none. TestDefaultSpecs decodes
// every section, so a broken default never reaches a user.
type lazySpecs struct {
	mu       sync.Mutex
	sections map[string]section
	decoded  map[string]*spec
	dups     []string // "NAME in A and B": a command in two packs (a test keeps this empty)
}

type section struct {
	file string // embedded file ("default.toml", "packs/go.toml")
	line int    // line of the first [commands.NAME…] header in it
	text string // a part of the embedded file: nothing is copied
}

// packOf is the pack name of an embedded file: "default" for
// default.toml, "go" for packs/go.toml.
func packOf(file string) string {
	return strings.TrimSuffix(path.Base(file), ".toml")
}

var defaults = sync.OnceValue(func() *lazySpecs {
	l := &lazySpecs{sections: make(map[string]section, 64), decoded: map[string]*spec{}}
	for _, f := range embeddedFiles {
		l.split(f.name, f.text)
	}
	return l
})

// split adds the sections of one embedded file. A section runs from a
// [commands.NAME] header (or [commands.NAME.sub.…], a subcommand of
// NAME) to the next header of another command, and is a slice of data:
// nothing is copied, as this runs at every start of clada.
func (l *lazySpecs) split(file string, data string) {
	const header = "[commands."
	const nlHeader = "\n[commands."
	name, start, startLine := "", 0, 0
	flush := func(end int) {
		if name == "" {
			return
		}
		if prev, ok := l.sections[name]; ok {
			l.dups = append(l.dups, fmt.Sprintf("%s in %s and %s", name, prev.file, file))
			return
		}
		l.sections[name] = section{file: file, line: startLine, text: data[start:end]}
	}
	pos, line := 0, 1 // line is the line number of data[pos]
	for at := 0; at < len(data); {
		next := -1
		if at == 0 && strings.HasPrefix(data, header) {
			next = 0
		} else if i := strings.Index(data[at:], nlHeader); i >= 0 {
			next = at + i + 1
		}
		if next < 0 {
			break
		}
		line += strings.Count(data[pos:next], "\n")
		pos, at = next, next+len(header)
		n := data[at:]
		if i := strings.IndexAny(n, "]\n"); i >= 0 {
			n = n[:i]
		}
		if i := strings.IndexByte(n, '.'); i >= 0 {
			n = n[:i]
		}
		if n == name {
			continue // a subcommand table of the same command
		}
		flush(next)
		name, start, startLine = n, next, line
	}
	flush(len(data))
}

func (l *lazySpecs) get(name string) (*spec, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sp, ok := l.decoded[name]; ok {
		return sp, nil
	}
	sec, ok := l.sections[name]
	if !ok {
		return nil, nil
	}
	m, err := parseSpecs(sec.file, []byte(sec.text))
	if err != nil {
		var se *SpecError
		if errors.As(err, &se) && se.Line > 0 {
			se.Line += sec.line - 1
		}
		return nil, fmt.Errorf("clada's embedded default specs are broken: %w", err)
	}
	sp := m[name]
	if sp != nil {
		sp.setPack(packOf(sec.file))
	}
	l.decoded[name] = sp
	return sp, nil
}

func (l *lazySpecs) names() []string { return slices.Sorted(maps.Keys(l.sections)) }

// Default returns the embedded specs (default.toml and packs/), each decoded on
// first use. Every call returns a new Set over the same shared specs, with
// its own program lookups.
func Default() (*Set, error) { return newSet(nil, defaults()), nil }

// Load returns the defaults plus root/.clada/specs.toml when it exists; a
// spec there replaces the default of the same name.
func Load(root string) (*Set, error) { return LoadTrust(root, nil, nil) }

// LoadScopes is [LoadTrust] with the person's own specs file at userPath
// ("" or missing: none) under the project's: a spec in the project's file
// replaces the user's of the same name, which replaces the default.
func LoadScopes(userPath, root string, trusts func(name string, data []byte) bool, withhold func(name string)) (*Set, error) {
	set, err := LoadTrust(root, trusts, withhold)
	if err != nil || userPath == "" {
		return set, err
	}
	data, err := smallfile.Read(userPath, -1)
	if errors.Is(err, os.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return nil, err
	}
	user, err := parseSpecs(userPath, data)
	if err != nil {
		return nil, err
	}
	for name, sp := range set.specs {
		user[name] = sp // the project's own
	}
	for _, sp := range user {
		if sp.label == "" {
			sp.label = userPath
		}
	}
	return newSet(user, defaults()), nil
}

// LoadTrust is [Load] with trust: when trusts (nil: every file is
// trusted) does not trust the content of specs.toml, the file is still
// parsed (an error in it is still an error) but only the defaults are
// used, since a project's spec can allow what the defaults ask; withhold
// is then told so.
func LoadTrust(root string, trusts func(name string, data []byte) bool, withhold func(name string)) (*Set, error) {
	path := filepath.Join(root, ".clada", "specs.toml")
	data, err := smallfile.Read(path, -1)
	if errors.Is(err, os.ErrNotExist) {
		return Default()
	}
	if err != nil {
		return nil, err
	}
	user, err := parseSpecs(path, data)
	if err != nil {
		return nil, err
	}
	if trusts != nil && len(user) > 0 && !trusts("specs.toml", data) {
		if withhold != nil {
			withhold("specs.toml")
		}
		return Default()
	}
	for _, sp := range user {
		sp.label = ".clada/specs.toml"
	}
	return newSet(user, defaults()), nil
}

// ParseData returns the specs of data, the content of the file at path, on
// their own, without the defaults (what `clada trust` shows).
func ParseData(path string, data []byte) (*Set, error) {
	m, err := parseSpecs(path, data)
	if err != nil {
		return nil, err
	}
	return newSet(m, nil), nil
}

// LoadFile returns the specs of one file on its own, without the
// defaults, for `clada specs --check`.
func LoadFile(path string) (*Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parseSpecs(path, data)
	if err != nil {
		return nil, err
	}
	return newSet(m, nil), nil
}

// Names returns the names of the commands with a spec, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.specs))
	for n := range s.specs {
		names = append(names, n)
	}
	if s.base != nil {
		for _, n := range s.base.names() {
			if _, ok := s.specs[n]; !ok {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// SpecError reports a malformed specs file.
type SpecError struct {
	File  string
	Line  int    // 1-based; 0 when unknown
	Field string // "commands.head.flags", "" when unknown
	Msg   string
}

func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func parseSpecs(file string, data []byte) (map[string]*spec, error) {
	var f specFile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &SpecError{File: file, Line: pe.Position.Line, Field: pe.LastKey, Msg: pe.Message}
		}
		return nil, &SpecError{File: file, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		name, field := "", ""
		if len(k) > 1 {
			name = k[1]
		}
		if len(k) > 2 {
			field = k[2]
		}
		return nil, &SpecError{File: file, Line: lineOf(data, name, field), Field: k.String(), Msg: "unknown field"}
	}
	m := make(map[string]*spec, len(f.Commands))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(f.Commands)) {
		sp, err := buildSpec(name, file, f.Commands[name])
		if err != nil {
			err.File = file
			err.Line = lineOf(data, name, strings.TrimPrefix(err.Field, "commands."+name+"."))
			errs = append(errs, err)
			continue
		}
		m[name] = sp
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// lineOf finds the line of field in [commands.name] (or of the header when
// field is "" or not found); 0 when not found. The decoder does not expose
// key positions, and a spec file is small.
func lineOf(data []byte, name, field string) int {
	lines := strings.Split(string(data), "\n")
	header := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "[commands."+name+"]" || t == `[commands."`+name+`"]` {
			header = i
			break
		}
	}
	if header < 0 {
		return 0
	}
	if field != "" {
		for i := header + 1; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			if strings.HasPrefix(t, "[") {
				break
			}
			if strings.HasPrefix(t, field) && strings.HasPrefix(strings.TrimSpace(t[len(field):]), "=") {
				return i + 1
			}
		}
	}
	return header + 1
}

// validCache reports whether a caches entry has one of the forms the
// sandbox expands: an absolute path, ~/PATH (the home directory), or
// $NAME or $NAME/PATH (an environment variable).
func validCache(c string) bool {
	switch {
	case strings.HasPrefix(c, "/"), strings.HasPrefix(c, "~/") && len(c) > 2:
		return true
	case strings.HasPrefix(c, "$"):
		name, _, _ := strings.Cut(c[1:], "/")
		if name == "" {
			return false
		}
		for _, r := range name {
			if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
				return false
			}
		}
		return true
	}
	return false
}

func buildSpec(name, file string, in fileSpec) (*spec, *SpecError) {
	return buildSpecAt(name, "commands."+name, file, in, false)
}

// buildSpecAt builds the spec of command name (for a subcommand, "go
// build"), whose TOML table is key ("commands.go.sub.build").
func buildSpecAt(name, key, file string, in fileSpec, isSub bool) (*spec, *SpecError) {
	field := func(f string) string { return key + "." + f }
	bad := func(f, format string, args ...any) *SpecError {
		return &SpecError{Field: field(f), Msg: fmt.Sprintf(format, args...)}
	}
	if !isSub {
		if name == "" || strings.ContainsAny(name, "/\\ \t") || strings.HasPrefix(name, "-") {
			return nil, bad("", "command name %q must be a bare program name", name)
		}
		if name == "git" {
			return nil, bad("", "git is checked by clada's git rules, not by a spec")
		}
		if _, ok := Wrapper([]string{name}); ok || isHardBlockedName(name) {
			return nil, bad("", "%s runs other programs or is hard-blocked; no spec can allow it", name)
		}
	}
	sp := &spec{
		name: name, source: file, description: string(in.Description),
		flags: map[string]ValueType{}, forbid: map[string]string{},
		positionals: 0, positionalPrefix: string(in.PositionalPrefix),
		patternFlags: map[string]bool{}, maxPaths: -1, exactPaths: -1,
		writes: in.Writes, targetDir: bool(in.TargetDir), numberOption: bool(in.NumberOption),
		shortValues: in.ShortValues, harden: in.Harden, allow: in.Allow, deny: in.Deny,
		network: bool(in.Network), caches: in.Caches, cacheQuery: in.CacheQuery,
		clusters: in.Clusters == nil || bool(*in.Clusters), permute: in.Permute == nil || bool(*in.Permute),
	}
	if sp.writes == "" {
		sp.writes = WritesNone
	}
	for _, c := range sp.caches {
		if !validCache(c) {
			return nil, bad("caches", "%q must be an absolute path, ~/PATH or $NAME[/PATH]", c)
		}
	}
	for _, a := range sp.cacheQuery {
		if a == "" || strings.ContainsRune(a, 0) {
			return nil, bad("cache_query", "arguments must be non-empty words")
		}
	}
	if sp.shortValues == "" {
		sp.shortValues = ShortAttached
	}
	for _, k := range slices.Sorted(maps.Keys(in.Flags)) {
		switch {
		case strings.HasPrefix(k, "--") && len(k) > 2 && !strings.Contains(k, "="):
		case len(k) >= 2 && k[0] == '-' && k[1] != '-' && !strings.Contains(k, "="):
		default:
			return nil, bad("flags", "flag %q must look like -x, -word or --word", k)
		}
		sp.flags[k] = in.Flags[k]
	}
	for _, k := range slices.Sorted(maps.Keys(in.Forbid)) {
		if !strings.HasPrefix(k, "-") {
			return nil, bad("forbid", "forbidden flag %q must start with -", k)
		}
		if _, ok := sp.flags[k]; ok {
			return nil, bad("forbid", "%s is both in flags and in forbid", k)
		}
		if _, ok := in.Tests[k]; ok {
			return nil, bad("forbid", "%s is both in tests and in forbid", k)
		}
		sp.forbid[k] = in.Forbid[k]
	}
	if in.Positionals != nil {
		if *in.Positionals < -1 {
			return nil, bad("positionals", "must be -1 (every operand) or a count, not %d", *in.Positionals)
		}
		sp.positionals = int(*in.Positionals)
	}
	sp.walkLinks = in.WalkLinks
	for _, f := range in.WalkTarget {
		if _, ok := sp.flags[f]; !ok {
			return nil, bad("walk_target", "%s is not in flags", f)
		}
		sp.walkTarget = append(sp.walkTarget, f)
	}
	for _, f := range in.ParentsFlags {
		if t, ok := sp.flags[f]; !ok || t != TypeBool {
			return nil, bad("parents_flags", "%s is not a bool flag in flags", f)
		}
		sp.parentsFlags = append(sp.parentsFlags, f)
	}
	for _, f := range in.TargetSelf {
		if _, ok := sp.flags[f]; !ok {
			return nil, bad("target_self", "%s is not in flags", f)
		}
		sp.targetSelf = append(sp.targetSelf, f)
	}
	for _, f := range in.PatternFlags {
		if _, ok := sp.flags[f]; !ok {
			return nil, bad("pattern_flags", "%s is not in flags", f)
		}
		sp.patternFlags[f] = true
	}
	if in.MaxPaths != nil {
		if *in.MaxPaths < -1 {
			return nil, bad("max_paths", "must be -1 (unlimited) or a count, not %d", *in.MaxPaths)
		}
		sp.maxPaths = int(*in.MaxPaths)
	}
	if in.ExactPaths != nil {
		if *in.ExactPaths < 0 {
			return nil, bad("exact_paths", "must be a count, not %d", *in.ExactPaths)
		}
		if in.MaxPaths != nil {
			return nil, bad("exact_paths", "set exact_paths or max_paths, not both")
		}
		sp.exactPaths = int(*in.ExactPaths)
		sp.maxPaths = int(*in.ExactPaths)
	}
	if in.Tests != nil {
		sp.tests = map[string]ValueType{}
		for _, k := range slices.Sorted(maps.Keys(in.Tests)) {
			if !strings.HasPrefix(k, "-") || strings.HasPrefix(k, "--") {
				return nil, bad("tests", "test %q must be a single-dash word like -name", k)
			}
			if in.Tests[k] == TypeOpt {
				return nil, bad("tests", "test %s: opt is not a test type", k)
			}
			sp.tests[k] = in.Tests[k]
		}
	}
	for i, ex := range in.Allow {
		if err := checkExampleShape(firstWord(name), ex); err != nil {
			return nil, bad("allow", "example %d: %v", i+1, err)
		}
	}
	for i, ex := range in.Deny {
		if err := checkExampleShape(firstWord(name), ex); err != nil {
			return nil, bad("deny", "example %d: %v", i+1, err)
		}
	}
	if err := sp.buildDestroys(in, bad); err != nil {
		return nil, err
	}
	if err := sp.buildRunner(name, key, file, in, isSub, bad); err != nil {
		return nil, err
	}
	for i, ex := range in.Asked {
		if err := checkExampleShape(firstWord(name), ex); err != nil {
			return nil, bad("asked", "example %d: %v", i+1, err)
		}
	}
	if len(in.ForbidOperands) > 0 {
		sp.forbidOperands = map[string]string{}
		for k, why := range in.ForbidOperands {
			if k == "" {
				return nil, bad("forbid_operands", "an operand prefix may not be empty")
			}
			sp.forbidOperands[k] = why
		}
	}
	sp.slashPaths = bool(in.SlashPaths)
	sp.dotPaths = bool(in.DotPaths)
	if sp.slashPaths && sp.positionals == 0 {
		return nil, bad("slash_paths", "needs positionals: it applies to operands that are not paths")
	}
	for _, f := range []struct {
		name string
		exs  []string
	}{{"bsd_allow", in.BSDAllow}, {"bsd_deny", in.BSDDeny}} {
		for i, ex := range f.exs {
			if err := checkExampleShape(firstWord(name), ex); err != nil {
				return nil, bad(f.name, "example %d: %v", i+1, err)
			}
		}
	}
	sp.bsdAllow, sp.bsdDeny = in.BSDAllow, in.BSDDeny
	if in.Portable && (len(in.BSDFlags)+len(in.BSDForbid) > 0 || in.BSDLong != nil || len(in.BSDAllow)+len(in.BSDDeny) > 0) {
		return nil, bad("portable", "a portable program parses the same way everywhere; bsd_flags, bsd_forbid, bsd_long and bsd examples do not apply")
	}
	if in.Tests == nil && !bool(in.Portable) && !isSub && len(in.Sub) == 0 && !bool(in.GoFlags) && !bool(in.Ask) {
		if err := sp.buildBSD(in, bad); err != nil {
			return nil, err
		}
	} else if len(in.BSDFlags)+len(in.BSDForbid) > 0 || in.BSDLong != nil {
		return nil, bad("bsd_flags", "find-style specs (tests), subcommand tools, Go-style flags and project runners (ask) parse the same way everywhere; bsd_flags, bsd_forbid and bsd_long do not apply")
	}
	return sp, nil
}

func checkExampleShape(name, ex string) error {
	argv, err := splitExample(ex)
	if err != nil {
		return err
	}
	if len(argv) == 0 || argv[0] != name {
		return fmt.Errorf("%q does not start with %s", ex, name)
	}
	return nil
}

// splitExample splits an example command line into words: blanks separate
// words, '…' and "…" quote (no escapes inside '…'; \" and \\ inside "…").
func splitExample(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// List writes one line per command with a spec, git's built-in rules
// included, for `clada specs`: the name, where the spec comes from
// (default.toml, .clada/specs.toml) and its description.
func (s *Set) List(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	names := append(s.Names(), "git")
	sort.Strings(names)
	for _, n := range names {
		if n == "git" {
			fmt.Fprintf(tw, "git\tbuilt-in\t%s\n", gitSummary)
			continue
		}
		sp, err := s.spec(n)
		if err != nil {
			return err
		}
		desc := sp.description
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sp.name, sp.file(), desc)
	}
	return tw.Flush()
}

// Print writes the effective spec of name in full, in a human-readable
// form for `clada specs NAME`; for git, clada's built-in git rules.
func (s *Set) Print(w io.Writer, name string) error {
	if name == "git" {
		_, err := io.WriteString(w, gitText())
		return err
	}
	sp, err := s.spec(name)
	if err != nil {
		return err
	}
	if sp == nil {
		names := append(s.Names(), "git")
		sort.Strings(names)
		return fmt.Errorf("no spec for %q (specs exist for: %s)", name, strings.Join(names, ", "))
	}
	var b strings.Builder
	sp.print(&b)
	_, err = io.WriteString(w, b.String())
	return err
}

// file is the file a spec comes from, as `clada specs` shows it: an
// embedded one ("internal/specs/default.toml", "internal/specs/packs/go.toml"), the
// project's .clada/specs.toml, or the file given to [LoadFile].
func (sp *spec) file() string {
	switch {
	case sp.label != "":
		return sp.label
	case sp.pack != "":
		return "internal/specs/" + sp.source
	}
	return sp.source
}

func (sp *spec) print(b *strings.Builder) {
	if sp.pack != "" {
		fmt.Fprintf(b, "%s  (pack %s, %s)\n", sp.name, sp.pack, sp.file())
	} else {
		fmt.Fprintf(b, "%s  (from %s)\n", sp.name, sp.file())
	}
	if sp.description != "" {
		fmt.Fprintf(b, "  %s\n", sp.description)
	}
	if len(sp.flags) > 0 {
		b.WriteString("  flags:")
		for _, k := range slices.Sorted(maps.Keys(sp.flags)) {
			if sp.flags[k] == TypeBool {
				fmt.Fprintf(b, " %s", k)
			} else {
				fmt.Fprintf(b, " %s=%s", k, sp.flags[k])
			}
		}
		b.WriteByte('\n')
	}
	if sp.numberOption {
		b.WriteString("  -NUM accepted as an option\n")
	}
	if sp.shortValues == ShortSeparate {
		b.WriteString("  short flags with a value must end their word; the value is the next word\n")
	}
	if !sp.clusters {
		b.WriteString("  short flags never combine: each word is one flag, or a value flag with its value attached (-l64)\n")
	}
	if !sp.permute {
		b.WriteString("  flags must come before the operands\n")
	}
	if sp.tests != nil {
		b.WriteString("  tests:")
		for _, k := range slices.Sorted(maps.Keys(sp.tests)) {
			if sp.tests[k] == TypeBool {
				fmt.Fprintf(b, " %s", k)
			} else {
				fmt.Fprintf(b, " %s=%s", k, sp.tests[k])
			}
		}
		b.WriteByte('\n')
	}
	switch {
	case sp.positionals < 0:
		b.WriteString("  operands: any words, none is a path\n")
	case sp.positionals > 0:
		fmt.Fprintf(b, "  operands: %d leading non-path word(s)", sp.positionals)
		if sp.positionalPrefix != "" {
			fmt.Fprintf(b, " starting with %q", sp.positionalPrefix)
		}
		if len(sp.patternFlags) > 0 {
			fmt.Fprintf(b, ", none when %s is given", strings.Join(slices.Sorted(maps.Keys(sp.patternFlags)), "/"))
		}
		b.WriteString(", then paths\n")
	}
	if sp.positionals >= 0 && sp.subs == nil {
		switch {
		case sp.exactPaths >= 0:
			fmt.Fprintf(b, "  paths: exactly %d\n", sp.exactPaths)
		case sp.maxPaths >= 0:
			fmt.Fprintf(b, "  paths: at most %d\n", sp.maxPaths)
		default:
			b.WriteString("  paths: any number\n")
		}
		fmt.Fprintf(b, "  writes: %s", sp.writes)
		if sp.targetDir {
			b.WriteString(" (the last path may be a directory receiving the others)")
		}
		b.WriteByte('\n')
	}
	if len(sp.forbid) > 0 {
		b.WriteString("  forbidden:\n")
		for _, k := range slices.Sorted(maps.Keys(sp.forbid)) {
			fmt.Fprintf(b, "    %s: %s\n", k, sp.forbid[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sp.forbidOperands)) {
		fmt.Fprintf(b, "  an operand starting with %q: %s\n", k, sp.forbidOperands[k])
	}
	if sp.slashPaths {
		b.WriteString("  an operand holding / is a path (confined)\n")
	}
	if sp.dotPaths {
		b.WriteString("  a path starts with . or / (./src): any other operand is an import path\n")
	}
	if sp.bsd != nil {
		b.WriteString("  on macOS and the BSDs (--os darwin|freebsd): options before the first operand")
		if !sp.bsdLong {
			b.WriteString("; no long options but those listed")
		}
		if len(sp.bsdFlags) > 0 {
			b.WriteString("; there:")
		}
		for _, k := range slices.Sorted(maps.Keys(sp.bsdFlags)) {
			fmt.Fprintf(b, " %s=%s", k, sp.bsdFlags[k])
		}
		b.WriteByte('\n')
		for _, k := range slices.Sorted(maps.Keys(sp.bsdForbid)) {
			fmt.Fprintf(b, "  forbidden on macOS and the BSDs: %s: %s\n", k, sp.bsdForbid[k])
		}
	}
	sp.printDestroys(b)
	if len(sp.walkLinks) > 0 {
		fmt.Fprintf(b, "  a directory operand must hold no symlink named *%s that leads out of the project (the program follows them)\n", strings.Join(sp.walkLinks, ", *"))
	}
	if len(sp.walkTarget) > 0 {
		fmt.Fprintf(b, "  recursive with %s: an existing destination tree must hold no symlinks or hard links\n", strings.Join(sp.walkTarget, " "))
	}
	if len(sp.targetSelf) > 0 {
		fmt.Fprintf(b, "  with %s the last path is the destination itself\n", strings.Join(sp.targetSelf, " "))
	}
	if len(sp.harden) > 0 {
		fmt.Fprintf(b, "  always runs with: %s\n", strings.Join(sp.harden, " "))
	}
	if sp.network {
		b.WriteString("  network: granted under the sandbox\n")
	}
	if len(sp.caches) > 0 {
		fmt.Fprintf(b, "  caches (writable under the sandbox): %s\n", strings.Join(sp.caches, " "))
	}
	if len(sp.cacheQuery) > 0 {
		fmt.Fprintf(b, "  more caches: the lines `%s %s` prints\n", sp.name, strings.Join(sp.cacheQuery, " "))
	}
	sp.printRunner(b, "  ")
	for _, ex := range sp.allow {
		fmt.Fprintf(b, "  allow: %s\n", ex)
	}
	for _, ex := range sp.deny {
		fmt.Fprintf(b, "  deny:  %s\n", ex)
	}
	for _, n := range sp.subNames {
		b.WriteByte('\n')
		sp.subs[n].print(b)
	}
}
