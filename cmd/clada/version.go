package main

import (
	"runtime/debug"
	"strings"
)

// versionString is what `clada --version` prints after "clada version ":
// the version set with -ldflags "-X main.version=…" when there is one,
// else the module version from the build information (v1.2.3 for
// `go install …@v1.2.3`, "(devel)" for a build in a checkout), followed by
// the commit and "modified" when the build recorded them, and the Go
// version.
func versionString(ldflags string, info *debug.BuildInfo, ok bool) string {
	if ldflags != "" {
		return ldflags
	}
	if !ok || info == nil {
		return "unknown (built without module information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var extra []string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			extra = append(extra, s.Value[:12])
		case s.Key == "vcs.revision":
			extra = append(extra, s.Value)
		case s.Key == "vcs.modified" && s.Value == "true":
			extra = append(extra, "modified")
		}
	}
	if info.GoVersion != "" {
		extra = append(extra, info.GoVersion)
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return v
}

// buildVersion is versionString for this binary.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	return versionString(version, info, ok)
}
