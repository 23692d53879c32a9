package main

import (
	"archive/zip"
	"bytes"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGoProxy serves, on 127.0.0.1 for the rest of the script, a Go module
// proxy holding one module, example.test/m v1.0.0 (its go.mod and m.go),
// and sets $GOPROXYPORT to its port: `goproxy`. Every request's path is
// kept in $WORK/goproxy.log (one per line), so that a script can tell
// whether a request reached it.
func cmdGoProxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: goproxy")
	}
	const mod, ver = "example.test/m", "v1.0.0"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range map[string]string{"go.mod": "module " + mod + "\n", "m.go": "package m\n\n// M is served by the test proxy.\nconst M = 1\n"} {
		w, err := zw.Create(mod + "@" + ver + "/" + name)
		ts.Check(err)
		_, err = w.Write([]byte(body))
		ts.Check(err)
	}
	ts.Check(zw.Close())
	files := map[string][]byte{
		"/" + mod + "/@v/list":             []byte(ver + "\n"),
		"/" + mod + "/@v/" + ver + ".info": []byte(`{"Version":"` + ver + `","Time":"2026-01-01T00:00:00Z"}`),
		"/" + mod + "/@v/" + ver + ".mod":  []byte("module " + mod + "\n"),
		"/" + mod + "/@v/" + ver + ".zip":  zbuf.Bytes(),
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	logPath := ts.MkAbs("goproxy.log")
	var (
		mu   sync.Mutex
		seen strings.Builder
	)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen.WriteString(r.URL.Path + "\n")
		_ = os.WriteFile(logPath, []byte(seen.String()), 0o644)
		mu.Unlock()
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	})}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv("GOPROXYPORT", strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
}
