package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"gopkg.in/yaml.v3"
)

// Config is what config.yaml sets. A missing file is the zero Config:
// every default.
type Config struct {
	// Keys remaps bindings by name (snake_case of the key map's fields:
	// search, next_denial, quit) to the keys that press them.
	Keys map[string][]string `yaml:"keys"`
	// Aliases name `:` lines: `ss: subject agent-7` makes `:ss` run it.
	Aliases map[string]string `yaml:"aliases"`
	// Searches are saved queries by name: `:search NAME` runs one.
	Searches map[string]string `yaml:"searches"`
	// Palette overrides colours by role (fg, dim, accent, deny, allow,
	// warn, ...), each an ANSI number or #rrggbb.
	Palette map[string]string `yaml:"palette"`

	// Path is the file it was read from ("" when none was found).
	Path string `yaml:"-"`
}

// ErrInvalid is a config file that does not read: the message names the
// file, the line and what to change.
var ErrInvalid = errors.New("invalid console config")

// Path is where the config is read from: $XDG_CONFIG_HOME/cordon/config.yaml,
// or ~/.config/cordon/config.yaml when XDG_CONFIG_HOME is unset.
func Path(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cordon", "config.yaml")
	}
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	return filepath.Join(home, ".config", "cordon", "config.yaml")
}

// maxSize bounds the file: settings, not data.
const maxSize = 1 << 20

// Load reads path; a file that does not exist is the defaults.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("console config: %w", err)
	}
	if len(b) > maxSize {
		return Config{}, fmt.Errorf("%w: %s is %d bytes; it holds settings, at most %d", ErrInvalid, path, len(b), maxSize)
	}
	c, err := Parse(b)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	c.Path = path
	return c, nil
}

// Parse reads a config's YAML; unknown keys are refused, so that a typo
// ("alises:") is said rather than silently ignored.
func Parse(b []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty file
		return Config{}, err
	}
	return c, c.Validate()
}

var aliasName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Validate checks what does not need the console: alias and search names
// are words. Key names and colours are checked where they apply
// (common.KeyMap.Remap, common.Palette.Override), which know them.
func (c Config) Validate() error {
	for a, line := range c.Aliases {
		if !aliasName.MatchString(a) {
			return fmt.Errorf("aliases: %q: want a lowercase word (letters, digits, dashes)", a)
		}
		if line == "" {
			return fmt.Errorf("aliases: %s: empty; want the `:` line it stands for", a)
		}
	}
	for n, q := range c.Searches {
		if n == "" || q == "" {
			return fmt.Errorf("searches: %q: want a name and a query", n)
		}
	}
	for name, ks := range c.Keys {
		if len(ks) == 0 {
			return fmt.Errorf("keys: %s: no keys; want a list such as [\"/\", \"ctrl+s\"]", name)
		}
	}
	return nil
}
