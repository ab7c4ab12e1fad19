package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestReleaseConfigBuildsStaticBinariesWithChecksums reads .goreleaser.yaml
// as goreleaser would: static (no cgo) builds of this command for the three
// platforms, the version stamped into the variable cordon version reads,
// and a checksum file.
func TestReleaseConfigBuildsStaticBinariesWithChecksums(t *testing.T) {
	b, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Ldflags []string `yaml:"ldflags"`
			Goos    []string `yaml:"goos"`
		} `yaml:"builds"`
		Checksum struct {
			Algorithm string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.Builds) != 1 {
		t.Fatalf("%d builds, want 1", len(cfg.Builds))
	}
	bd := cfg.Builds[0]
	if bd.Main != "./cmd/cordon" || !slices.Contains(bd.Env, "CGO_ENABLED=0") {
		t.Errorf("build: main %q env %v", bd.Main, bd.Env)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if !slices.Contains(bd.Goos, goos) {
			t.Errorf("no %s build", goos)
		}
	}
	if !strings.Contains(strings.Join(bd.Ldflags, " "), "-X main.version=") {
		t.Errorf("ldflags %v do not stamp main.version", bd.Ldflags)
	}
	if cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %q", cfg.Checksum.Algorithm)
	}
}
