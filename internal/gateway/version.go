package gateway

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// versionWords are the only arguments a version query may have, alone.
// -V, -h, -version, version and help are not: sort -h and sort -V sort
// standard input, sh -h reads commands from it, -h names a host for
// mysql and psql, tar -V labels an archive, dpkg -V verifies packages,
// BSD make -V prints a variable, a getopt program reads -version as
// -v -e rsion, and `kubectl version`, `docker version` or `terraform
// version` contact a server, `npm help X` opens a browser.
var versionWords = []string{"--help", "--version"}

// launchers are programs that, before they read their arguments, run
// what a project file names: their --version runs project code. A spec
// for one of them (cargo, mvn, gradle, dotnet, flutter, mix) decides
// first and opts out of --help and --version with no_help; this list
// covers the ones without a spec.
var launchers = map[string]string{
	"cargo":         "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"rustc":         "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"rustdoc":       "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"rustfmt":       "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"rustup":        "runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"cargo-clippy":  "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"clippy-driver": "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"rust-analyzer": "is most often rustup's proxy, which runs the toolchain the project's rust-toolchain.toml names, and that may be a directory in the project",
	"mvn":           "starts Java with the options of the project's .mvn/jvm.config, where -javaagent loads project code",
	"mvnd":          "starts Java with the options of the project's .mvn/jvm.config, where -javaagent loads project code",
	"sbt":           "starts Java with the options of the project's .jvmopts and .sbtopts, and the sbt that project/build.properties names",
	"gradle":        "reads the project's gradle.properties, which chooses the Java that runs and its options",
	"yarn":          "runs the file the project's .yarnrc.yml names in yarnPath (Yarn 1 too), which is project code",
	"bazel":         "is most often bazelisk, which runs the Bazel that the project's .bazelversion and .bazeliskrc name, from a URL the project can set",
	"bazelisk":      "runs the Bazel that the project's .bazelversion and .bazeliskrc name, from a URL the project can set",
	"dotnet":        "runs the SDK that the project's global.json chooses, and global.json may name SDK directories in the project",
	"composer":      "loads the Composer plugins installed in the project's vendor/ directory",
	"bundle":        "loads the Bundler plugins that the project's .bundle/ directory names",
	"bundler":       "loads the Bundler plugins that the project's .bundle/ directory names",
	"py.test":       "imports the project's conftest.py files, which add options, for --help and --version",
	"flake8":        "loads the local plugins the project's configuration names to print their versions",
	// Not a launcher, but no version query either: BSD yes prints its
	// operand, --help too, forever.
	"yes": "prints its operands forever on macOS and the BSDs, --help too",
}

// multiplexers are the files version managers install under every
// program's name: the program that runs is chosen by a project file
// (.tool-versions, .python-version, package.json's volta field …).
var multiplexers = []string{"rustup", "rustup-init", "volta-shim", "mise", "asdf", "proto-shim"}

// scriptInterpreters run scripts that commonly hand the command to the
// copy installed in the project's node_modules before they look at
// their arguments (import-local: jest, webpack, nx, turbo, @angular/cli,
// grunt, gulp, serverless …).
var scriptInterpreters = []string{"node", "nodejs", "bun", "deno"}

// versionQuery allows argv when it is `NAME --version` or `NAME --help`
// of a program PATH finds outside the project that is no launcher: such
// a program prints and exits. ok is false when argv is no such query
// (the command is then asked as before). A program PATH finds inside the
// project is turned into project-program by the caller.
func (g *Gateway) versionQuery(argv []string, absDir, program string) (Verdict, bool) {
	if program != "" || len(argv) != 2 || !slices.Contains(versionWords, argv[1]) {
		return Verdict{}, false
	}
	name := specs.ProgName(argv[0])
	if _, ok := launchers[name]; ok {
		return Verdict{}, false
	}
	p, err := g.opts.Specs.LookPath(argv[0])
	if err != nil {
		return Verdict{}, false
	}
	if why := launcherFile(p); why != "" {
		return Verdict{}, false
	}
	v := g.runnable(argv, absDir, p)
	if dropped, ok := g.systemPath(); ok {
		v.Env = append(v.Env, "PATH="+dropped)
	}
	v.Rule = rules.VersionQuery
	v.Reason = fmt.Sprintf("%s %s only prints: %s is a program outside the project (%s)", argv[0], argv[1], argv[0], p)
	return v, true
}

// launcherFile says why the program file p (as PATH finds it) is a
// version manager's shim or a script that may run project code, "" when
// it is neither.
func launcherFile(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "cannot be resolved"
	}
	for _, d := range strings.Split(filepath.ToSlash(filepath.Dir(real)), "/") {
		if d == "shims" {
			return "is a version manager's shim, which runs the program a project file chooses"
		}
	}
	for _, d := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
		if d == "shims" {
			return "is a version manager's shim, which runs the program a project file chooses"
		}
	}
	if slices.Contains(multiplexers, specs.ProgName(filepath.Base(real))) {
		return "is a version manager's shim, which runs the program a project file chooses"
	}
	switch strings.ToLower(filepath.Ext(real)) {
	case ".cmd", ".bat", ".ps1":
		// npm's global programs on Windows are such files, which run
		// node, and cmd.exe reads their arguments its own way.
		return "is a script that runs another program"
	}
	f, err := os.Open(real)
	if err != nil {
		return "cannot be read"
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	for _, w := range strings.Fields(string(line)) {
		if slices.Contains(scriptInterpreters, specs.ProgName(filepath.Base(w))) {
			return "is a " + filepath.Base(w) + " script, which may hand the command to the copy installed in the project"
		}
	}
	return ""
}
