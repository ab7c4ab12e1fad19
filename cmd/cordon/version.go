package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// version is set by release builds (-ldflags "-X main.version=v1.2.3");
// a build from a checkout says what the Go toolchain recorded instead.
var version = ""

// cordonVersion is the version the binary was built as: the release's, or
// the module version ("(devel)" from a checkout) with its commit when the
// build recorded one.
func cordonVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// versionInfo is what cordon version prints.
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func cmdVersion(e *env, c *cobra.Command) {
	asJSON := c.Flags().Bool("json", false, "the version as JSON")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(*cobra.Command, []string) error {
		v := versionInfo{Version: cordonVersion(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(v)
		}
		fmt.Fprintf(e.stdout, "cordon %s (%s, %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
		return nil
	}
}

// cmdMan writes the man pages of the whole tree, one per command, from the
// same definitions the help and the completion read.
func cmdMan(e *env, c *cobra.Command) {
	c.Args = wantArgs(1, "one folder")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := os.MkdirAll(args[0], 0o755); err != nil {
			return fmt.Errorf("man: %w", err)
		}
		hdr := &doc.GenManHeader{Title: "CORDON", Section: "1", Source: "cordon " + cordonVersion(), Manual: "cordon manual"}
		if err := doc.GenManTree(cmd.Root(), hdr, args[0]); err != nil {
			return fmt.Errorf("man: %w", err)
		}
		fmt.Fprintf(e.stderr, "man pages written to %s\n", args[0])
		return nil
	}
}
