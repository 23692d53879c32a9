package netproxy

import (
	"archive/zip"
	"bytes"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestGoModDownloadThroughProxy runs a real client, the go command, with
// nothing but Env() to find the proxy: it downloads a module over HTTPS
// (CONNECT, TLS inside the tunnel) and over plain HTTP from a fake module
// proxy reached by a name the test maps, and fails with the refusal for a
// name not granted.
func TestGoModDownloadThroughProxy(t *testing.T) {
	gomod := "module example.com/hello\n\ngo 1.21\n"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range map[string]string{
		"go.mod":   gomod,
		"hello.go": "package hello\n\nconst Greeting = \"hello\"\n",
	} {
		w, err := zw.Create("example.com/hello@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"/example.com/hello/@v/list":        []byte("v1.0.0\n"),
		"/example.com/hello/@v/v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`),
		"/example.com/hello/@v/v1.0.0.mod":  []byte(gomod),
		"/example.com/hello/@v/v1.0.0.zip":  zbuf.Bytes(),
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})
	registry := httptest.NewTLSServer(handler)
	t.Cleanup(registry.Close)
	plain := httptest.NewServer(handler)
	t.Cleanup(plain.Close)
	dir := t.TempDir()
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: registry.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	f := newFixture(t)
	// httptest's certificate is for *.example.com.
	f.route("goproxy.example.com", 443, registry.Listener.Addr().String(), true)
	f.route("other.example.com", 443, registry.Listener.Addr().String(), false)
	f.route("goproxy.example.com", 80, plain.Listener.Addr().String(), true)
	f.route("other.example.com", 80, plain.Listener.Addr().String(), false)

	download := func(goproxy, cache string) (string, error) {
		var env []string
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			if !strings.HasSuffix(strings.ToLower(name), "_proxy") && !strings.HasPrefix(name, "GO") {
				env = append(env, kv)
			}
		}
		env = append(env, f.p.Env()...)
		env = append(env,
			"GOPROXY="+goproxy, "GOSUMDB=off", "GOTOOLCHAIN=local", "GOFLAGS=-modcacherw",
			"GOMODCACHE="+filepath.Join(dir, cache), "GOCACHE="+filepath.Join(dir, "cache"),
			"GOPATH="+filepath.Join(dir, "gopath"), "SSL_CERT_FILE="+cert, "SSL_CERT_DIR="+dir)
		cmd := exec.Command("go", "mod", "download", "-json", "example.com/hello@v1.0.0")
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	for _, scheme := range []string{"https", "http"} {
		t.Run(scheme, func(t *testing.T) {
			// The go command trusts the test's certificate through
			// SSL_CERT_FILE, which Go honours on Linux only (macOS and
			// Windows ask the system); plain HTTP runs everywhere.
			if scheme == "https" && runtime.GOOS != "linux" {
				t.Skip("SSL_CERT_FILE is not honoured on " + runtime.GOOS)
			}
			port := map[string]string{"https": "443", "http": "80"}[scheme]
			out, err := download(scheme+"://goproxy.example.com", scheme+"-mod")
			if err != nil {
				t.Fatalf("go mod download through the proxy: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, scheme+"-mod", "example.com", "hello@v1.0.0", "hello.go")); err != nil {
				t.Fatalf("the module is not in the cache: %v\n%s", err, out)
			}
			if got := f.askedList(); !slices.Contains(got, "goproxy.example.com:"+port) {
				t.Errorf("Allow asked %q", got)
			}
			// The go command shows the reason phrase of a refusal (not its
			// body): the refusal is there.
			out, err = download(scheme+"://other.example.com", scheme+"-mod2")
			want := "clada: the network grant of this command does not include other.example.com:" + port
			if err == nil || !strings.Contains(out, want) {
				t.Fatalf("go mod download from a host not granted: %v\n%s\nwant a failure naming %q", err, out, want)
			}
			if got := f.p.Refused(); !slices.Contains(got, "other.example.com:"+port) {
				t.Errorf("Refused() = %q", got)
			}
		})
	}
}
