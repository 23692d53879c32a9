package specs

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
