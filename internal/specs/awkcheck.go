package specs

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
)

// The awk checker (script_check = "awk", docs/specs.md): clada parses the
// awk program with GoAWK's parser and walks its syntax tree. A program
// that runs nothing, writes nothing, reads only its input files and does
// not read the environment is a read, whatever awk runs it (mawk, BWK
// awk, busybox, gawk); anything else is asked, naming the construct.
//
// GoAWK (github.com/benhoyt/goawk) was taken rather than a parser of our
// own: it is a maintained, POSIX-conformant awk, tested against the
// one-true-awk and gawk test suites, so its grammar (regex or division
// after an operand, print's > as redirection, getline's forms, implicit
// concatenation) is the awk grammar, where a hand-written one would be a
// new source of disagreement between what clada checks and what awk runs.
// Its syntax tree lives in an internal package, so the walk below goes by
// reflection over the node types, and fails closed: a node type it does
// not know (a newer GoAWK) makes the program asked.

// awkAstPkg is the package of GoAWK's syntax tree nodes.
const awkAstPkg = "github.com/benhoyt/goawk/internal/ast"

// awkKnownNodes are the node types of GoAWK v1.29's syntax tree the walk
// has been written against; any other struct of that package is asked.
var awkKnownNodes = map[string]bool{
	"Program": true, "Action": true, "Function": true,
	"FieldExpr": true, "NamedFieldExpr": true, "UnaryExpr": true, "BinaryExpr": true, "InExpr": true,
	"CondExpr": true, "NumExpr": true, "StrExpr": true, "RegExpr": true, "VarExpr": true, "IndexExpr": true,
	"AssignExpr": true, "AugAssignExpr": true, "IncrExpr": true, "CallExpr": true, "UserCallExpr": true,
	"MultiExpr": true, "GetlineExpr": true, "GroupingExpr": true,
	"PrintStmt": true, "PrintfStmt": true, "ExprStmt": true, "IfStmt": true, "ForStmt": true, "ForInStmt": true,
	"WhileStmt": true, "DoWhileStmt": true, "BreakStmt": true, "ContinueStmt": true, "NextStmt": true,
	"NextfileStmt": true, "ExitStmt": true, "DeleteStmt": true, "ReturnStmt": true, "BlockStmt": true,
}

// gawkFuncs are gawk's built-in functions that POSIX awk lacks and that
// neither run programs nor open files; GoAWK parses calls to them as calls
// of these (never run) stand-ins, so a gawk program using them is checked
// rather than asked as a syntax error. The ones taking arrays (asort,
// asorti, patsplit, isarray, typeof) are left out: GoAWK's stand-ins take
// only scalars, so those programs are asked.
var gawkFuncs = func() map[string]any {
	f := func(...string) string { return "" }
	m := map[string]any{}
	for _, n := range []string{"gensub", "strftime", "systime", "mktime", "and", "or", "xor", "lshift", "rshift", "compl", "strtonum", "bindtextdomain", "dcgettext", "dcngettext"} {
		m[n] = f
	}
	return m
}()

// awkStdStreams are the redirection targets that name the streams awk
// already has: gawk, mawk and BWK awk treat them as standard output and
// error (elsewhere they are the devices of the same name).
var awkStdStreams = map[string]bool{"/dev/stdout": true, "/dev/stderr": true}

// awkMaxNesting bounds the brackets of a program clada parses: GoAWK's
// parser recurses on each, and a program of 100,000 parentheses takes it
// seconds. Brackets in strings count too; such a program is only asked.
const awkMaxNesting = 200

// awkWhy checks an awk program (every source of one command, joined with
// newlines, as awk concatenates them) and says why it is not a plain
// read, "" when it is one. streams reports that the program prints to
// "/dev/stdout" or "/dev/stderr", which gawk --sandbox refuses: such a
// program runs without the guard.
func awkWhy(src string) (why string, streams bool) {
	depth, most := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '[', '{':
			depth++
			most = max(most, depth)
		case ')', ']', '}':
			depth--
		}
	}
	if most > awkMaxNesting {
		return fmt.Sprintf("the program nests brackets more than %d deep, too deep for clada to check", awkMaxNesting), false
	}
	prog, err := parser.ParseProgram([]byte(src), &parser.ParserConfig{Funcs: gawkFuncs})
	if err != nil {
		return "clada could not parse the program (" + err.Error() + "), so it cannot tell what it does: write it in POSIX awk", false
	}
	w := &awkWalker{funcs: map[string]bool{}}
	for _, f := range prog.Functions {
		w.funcs[f.Name] = true
	}
	w.walk(reflect.ValueOf(&prog.Program), 0)
	return w.why, w.streams
}

// awkWalker walks a GoAWK syntax tree and keeps the first reason found.
type awkWalker struct {
	why     string
	funcs   map[string]bool // the program's own functions
	streams bool            // prints to /dev/stdout or /dev/stderr
}

func (w *awkWalker) found(format string, args ...any) {
	if w.why == "" {
		w.why = fmt.Sprintf(format, args...)
	}
}

// walk visits v and everything under it. The tree is finite (no parent
// links); depth bounds it anyway.
func (w *awkWalker) walk(v reflect.Value, depth int) {
	if w.why != "" {
		return
	}
	if depth > 10000 {
		w.found("the program is nested too deeply for clada to check")
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), depth+1)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i), depth+1)
		}
	case reflect.Struct:
		t := v.Type()
		if t.PkgPath() == awkAstPkg {
			if !awkKnownNodes[t.Name()] {
				w.found("the program uses %s, a construct clada's awk checker does not know", t.Name())
				return
			}
			w.node(t.Name(), v)
		}
		for i := range v.NumField() {
			w.walk(v.Field(i), depth+1)
		}
	}
}

// field reads the named field of a node struct.
func field(v reflect.Value, name string) reflect.Value { return v.FieldByName(name) }

// nodeOf is the struct a node field (an ast.Expr interface) holds, and its
// type name; "" for nil.
func nodeOf(v reflect.Value) (reflect.Value, string) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return v, ""
	}
	return v, v.Type().Name()
}

// strLit is the value of a string literal node ("", false otherwise).
func strLit(v reflect.Value) (string, bool) {
	n, name := nodeOf(v)
	for name == "GroupingExpr" { // ("/dev/stderr")
		n, name = nodeOf(field(n, "Expr"))
	}
	if name != "StrExpr" || field(n, "Regex").Bool() {
		return "", false
	}
	return field(n, "Value").String(), true
}

// node checks one node of the tree.
func (w *awkWalker) node(name string, v reflect.Value) {
	switch name {
	case "CallExpr":
		args := field(v, "Args")
		switch lexer.Token(field(v, "Func").Int()) {
		case lexer.F_SYSTEM:
			w.found("calls system(), which runs a shell command")
		case lexer.F_CLOSE:
			w.found("calls close(), which closes (and waits for) a file or a command the program opened")
		case lexer.F_FFLUSH:
			if args.Len() > 0 {
				if s, ok := strLit(args.Index(0)); !ok || (s != "" && !awkStdStreams[s]) {
					w.found("calls fflush() of a file or command")
				}
			}
		case lexer.F_SUB, lexer.F_GSUB:
			if args.Len() > 2 {
				w.lvalue(args.Index(2), reflect.Value{})
			}
		}
	case "PrintStmt", "PrintfStmt":
		verb := strings.ToLower(strings.TrimSuffix(name, "Stmt"))
		switch lexer.Token(field(v, "Redirect").Int()) {
		case lexer.ILLEGAL:
		case lexer.PIPE:
			w.found("%s | pipes its output to a shell command", verb)
		default:
			if s, ok := strLit(field(v, "Dest")); !ok || !awkStdStreams[s] {
				w.found("%s > writes to a file (only /dev/stdout and /dev/stderr are plain output)", verb)
			}
			w.streams = true
		}
	case "GetlineExpr":
		if _, n := nodeOf(field(v, "Command")); n != "" {
			w.found("cmd | getline runs a shell command and reads its output")
		}
		if _, n := nodeOf(field(v, "File")); n != "" {
			if s, ok := strLit(field(v, "File")); !ok || (s != "-" && s != "/dev/stdin") {
				w.found("getline < file reads a file the program names, which clada does not check")
			}
		}
		w.lvalue(field(v, "Target"), reflect.Value{})
	case "AssignExpr":
		w.lvalue(field(v, "Left"), field(v, "Right"))
	case "AugAssignExpr":
		w.lvalue(field(v, "Left"), reflect.Value{})
	case "IncrExpr":
		w.lvalue(field(v, "Expr"), reflect.Value{})
	case "NamedFieldExpr":
		w.found("@ is gawk's @include, @load, @namespace or indirect call @f(), which load files or call functions clada does not check")
	case "VarExpr":
		w.array(field(v, "Name").String(), true)
	case "IndexExpr", "InExpr", "ForInStmt", "DeleteStmt":
		w.array(field(v, "Array").String(), false)
	}
}

// array checks a use of the variable or array name; whole is true for the
// name alone (an array passed to a function).
func (w *awkWalker) array(name string, whole bool) {
	switch name {
	case "ENVIRON":
		w.found("ENVIRON reads the environment, which may hold secrets")
	case "SYMTAB":
		w.found("SYMTAB reaches every variable by name, ENVIRON and ARGV too")
	case "ARGV":
		if whole {
			w.found("passes ARGV whole, and ARGV names the files awk reads")
		}
	}
}

// lvalue checks an assigned node: ARGV's elements name the files awk
// reads next, and PROCINFO["sorted_in"] names a function gawk calls.
func (w *awkWalker) lvalue(left, right reflect.Value) {
	n, name := nodeOf(left)
	if name != "IndexExpr" {
		return
	}
	switch field(n, "Array").String() {
	case "ARGV":
		w.found("assigns to ARGV, whose elements name the files awk reads, which clada does not check")
	case "PROCINFO":
		s, ok := "", false
		if right.IsValid() {
			s, ok = strLit(right)
		}
		if !ok || !(strings.HasPrefix(s, "@") || w.funcs[s]) {
			w.found("sets PROCINFO, where gawk finds functions to call and how to read input; only PROCINFO[\"sorted_in\"] = \"@…\" or the name of the program's own function is checked")
		}
	}
}
