package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdJSONLines parses the stdout of the last command as JSON Lines and
// checks fields: `jsonlines N key=value ...` asserts that line N (0-based;
// -1 is the last) has each key with that value, compared as JSON text
// (strings unquoted). `jsonlines count N` asserts the number of lines.
// Every line must parse, whatever is asserted.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! jsonlines")
	}
	out := strings.TrimRight(ts.ReadFile("stdout"), "\n")
	var lines []map[string]any
	for i, l := range strings.Split(out, "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			ts.Fatalf("stdout line %d is not JSON: %v: %s", i, err, l)
		}
		lines = append(lines, m)
	}
	if len(args) == 2 && args[0] == "count" {
		if fmt.Sprint(len(lines)) != args[1] {
			ts.Fatalf("got %d JSON lines, want %s", len(lines), args[1])
		}
		return
	}
	if len(args) < 2 {
		ts.Fatalf("usage: jsonlines N key=value... | jsonlines count N")
	}
	var n int
	if _, err := fmt.Sscan(args[0], &n); err != nil {
		ts.Fatalf("bad line number %q", args[0])
	}
	if n < 0 {
		n += len(lines)
	}
	if n < 0 || n >= len(lines) {
		ts.Fatalf("no JSON line %s (have %d)", args[0], len(lines))
	}
	for _, kv := range args[1:] {
		k, want, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("bad assertion %q, want key=value", kv)
		}
		v, present := lines[n][k]
		if !present {
			ts.Fatalf("line %d has no key %q: %v", n, k, lines[n])
		}
		got := ""
		if s, isStr := v.(string); isStr {
			got = s
		} else {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != want {
			ts.Fatalf("line %d: %s = %s, want %s", n, k, got, want)
		}
	}
}
