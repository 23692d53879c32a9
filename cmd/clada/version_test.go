package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{name: "ldflags win", ldflags: "1.2.3", info: &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}}, ok: true, want: "1.2.3"},
		{name: "go install @version", info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}}, ok: true,
			want: "v0.3.0 (go1.26.8)"},
		{name: "checkout with vcs", ok: true, info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8775e46d0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}},
			want: "(devel) (8775e46d0123, modified, go1.26.8)"},
		{name: "clean checkout", ok: true, info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			want: "(devel) (abc)"},
		{name: "no build info", want: "unknown (built without module information)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := versionString(tt.ldflags, tt.info, tt.ok); got != tt.want {
				t.Errorf("versionString = %q, want %q", got, tt.want)
			}
		})
	}
}
