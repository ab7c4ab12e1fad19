package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
	// pos is where the file names each entry: "keys.search", "palette.deny".
	pos map[string]Pos
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
		return Config{}, invalid(path, err)
	}
	c.Path = path
	return c, nil
}

// invalid is ErrInvalid with each problem of err placed in path.
func invalid(path string, err error) error {
	var ps Problems
	if !errors.As(err, &ps) {
		return fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	for i := range ps {
		ps[i].File = path
	}
	return fmt.Errorf("%w: %w", ErrInvalid, ps)
}

// sections are the keys config.yaml may set at its top.
var sections = []string{"keys", "aliases", "searches", "palette"}

// Parse reads a config's YAML. Unknown keys are refused, each where it
// stands (line:col), so that a typo ("alises:") is said rather than
// silently ignored.
func Parse(b []byte) (Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return Config{}, err
	}
	c := Config{pos: map[string]Pos{}}
	if len(root.Content) == 0 {
		return c, nil // an empty file
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return Config{}, Problems{{Pos: at(doc), Msg: "want a mapping of " + strings.Join(sections, ", ")}}
	}
	var ps Problems
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if !slices.Contains(sections, k.Value) {
			ps = append(ps, Problem{Pos: at(k), Msg: fmt.Sprintf("unknown key %q%s; the keys are %s", k.Value, nearest(k.Value, sections), strings.Join(sections, ", "))})
			continue
		}
		if v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				c.pos[k.Value+"."+v.Content[j].Value] = at(v.Content[j])
			}
		}
	}
	if len(ps) > 0 {
		return Config{}, ps
	}
	pos := c.pos
	if err := doc.Decode(&c); err != nil {
		return Config{}, err
	}
	c.pos = pos
	return c, c.Validate()
}

var aliasName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Validate checks what does not need the console: alias and search names
// are words, and every binding has keys. Binding and role names are
// checked by CheckNames, which is given the console's.
func (c Config) Validate() error {
	var ps Problems
	for _, a := range slices.Sorted(maps.Keys(c.Aliases)) {
		switch {
		case !aliasName.MatchString(a):
			ps = append(ps, c.problem("aliases", a, fmt.Sprintf("aliases: %q: want a lowercase word (letters, digits, dashes)", a)))
		case c.Aliases[a] == "":
			ps = append(ps, c.problem("aliases", a, fmt.Sprintf("aliases: %s: empty; want the `:` line it stands for", a)))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Searches)) {
		if n == "" || c.Searches[n] == "" {
			ps = append(ps, c.problem("searches", n, fmt.Sprintf("searches: %q: want a name and a query", n)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Keys)) {
		if len(c.Keys[name]) == 0 {
			ps = append(ps, c.problem("keys", name, fmt.Sprintf("keys: %s: no keys; want a list such as [\"/\", \"ctrl+s\"]", name)))
		}
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

// CheckNames refuses a key binding or a palette role the console does not
// have, each where the file names it, with the nearest name there is.
func (c Config) CheckNames(bindings, roles []string) error {
	var ps Problems
	for _, name := range slices.Sorted(maps.Keys(c.Keys)) {
		if !slices.Contains(bindings, name) {
			ps = append(ps, c.problem("keys", name, fmt.Sprintf("keys: no binding %q%s; the bindings are %s", name, nearest(name, bindings), strings.Join(bindings, ", "))))
		}
	}
	for _, role := range slices.Sorted(maps.Keys(c.Palette)) {
		if !slices.Contains(roles, role) {
			ps = append(ps, c.problem("palette", role, fmt.Sprintf("palette: no role %q%s; the roles are %s", role, nearest(role, roles), strings.Join(roles, ", "))))
		}
	}
	if len(ps) == 0 {
		return nil
	}
	for i := range ps {
		ps[i].File = c.Path
	}
	if c.Path != "" {
		return fmt.Errorf("%w: %w", ErrInvalid, ps)
	}
	return ps
}

// problem is msg at where the file names section's name.
func (c Config) problem(section, name, msg string) Problem {
	return Problem{Pos: c.pos[section+"."+name], Msg: msg}
}
