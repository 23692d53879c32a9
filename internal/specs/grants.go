package specs

import "strings"

// Grants are what a command may do under the sandbox besides writing in
// the project: the network and the build caches it may write.
type Grants struct {
	Network bool
	// Caches are directories as a spec writes them: an absolute path,
	// ~/PATH or $NAME[/PATH].
	Caches []string
	// CacheQuery are arguments to the same program that print more cache
	// directories, one per line.
	CacheQuery []string
	// Hosts are the host names (patterns: "*.example.com" for any name
	// below example.com) the command may reach through clada's proxy:
	// the registries of a program whose spec grants the network, and
	// the person's hosts = [...] (gateway).
	Hosts []string
	// OpenNetwork gives a command that the network is granted to the
	// whole network rather than the proxy (network = "open" in
	// config.toml).
	OpenNetwork bool
	// DeniedHosts are hosts the command is refused without a question:
	// the person answered never when asked about one while a command of
	// the same pattern ran (gateway; commands.toml [[network]]).
	DeniedHosts []string
}

// registryHosts are the hosts a package manager fetches from by default,
// which a command of it whose spec grants the network may reach through
// clada's proxy. A project that uses another registry (an .npmrc
// registry, GOPROXY, a private index) names it in hosts = [...].
var registryHosts = map[string][]string{
	"npm":    {"registry.npmjs.org"},
	"npx":    {"registry.npmjs.org"},
	"pnpm":   {"registry.npmjs.org"},
	"yarn":   {"registry.yarnpkg.com", "registry.npmjs.org", "repo.yarnpkg.com"},
	"go":     {"proxy.golang.org", "sum.golang.org", "storage.googleapis.com"},
	"pip":    {"pypi.org", "files.pythonhosted.org"},
	"pip3":   {"pypi.org", "files.pythonhosted.org"},
	"uv":     {"pypi.org", "files.pythonhosted.org"},
	"cargo":  {"crates.io", "index.crates.io", "static.crates.io"},
	"gem":    {"rubygems.org", "index.rubygems.org"},
	"bundle": {"rubygems.org", "index.rubygems.org"},
	"mvn":    {"repo.maven.apache.org", "repo1.maven.org"},
	"gradle": {"plugins.gradle.org", "services.gradle.org", "repo.maven.apache.org", "repo1.maven.org"},
	"dotnet": {"api.nuget.org"},
}

// RegistryHosts returns the registries of the program name (a bare name
// such as "npm"); nil when clada knows none.
func RegistryHosts(name string) []string { return registryHosts[name] }

// HostMatch reports whether host (lower case, no trailing dot) matches
// pattern: the same name, or, for "*.example.com", any name below
// example.com (not example.com itself).
func HostMatch(pattern, host string) bool {
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+rest)
	}
	return pattern == host
}

// programGrants are the build caches of common tools (go, cargo, npm …):
// without them an approved `go build` or `cargo test` fails under the
// sandbox for want of its cache. They grant no network: that is the
// spec's to grant (the packs give it to npm install, go mod download and
// their kind, and the person approving sees it); a command no spec
// grants it runs offline, or unconfined by the person's choice
// (--sandbox off). A spec's own caches replace these.
var programGrants = map[string]Grants{
	"go":     {CacheQuery: []string{"env", "GOCACHE", "GOMODCACHE"}},
	"cargo":  {Caches: []string{"$CARGO_HOME/registry", "$CARGO_HOME/git", "~/.cargo/registry", "~/.cargo/git"}},
	"npm":    {Caches: []string{"~/.npm"}},
	"npx":    {Caches: []string{"~/.npm"}},
	"yarn":   {Caches: []string{"~/.cache/yarn"}},
	"pip":    {Caches: []string{"~/.cache/pip"}},
	"pip3":   {Caches: []string{"~/.cache/pip"}},
	"gradle": {Caches: []string{"~/.gradle/caches"}},
	"mvn":    {Caches: []string{"~/.m2/repository"}},
}

// ProgramGrants returns the built-in sandbox grants of the program name
// (a bare name such as "go"), for a command no spec grants anything.
func ProgramGrants(name string) (Grants, bool) {
	g, ok := programGrants[name]
	return g, ok
}
