package common

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
)

// snake is a field name as config.yaml spells it: NextDenial → next_denial.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// bindings are the key map's bindings by their config name.
func (k *KeyMap) bindings() map[string]*key.Binding {
	out := map[string]*key.Binding{}
	v := reflect.ValueOf(k).Elem()
	for i := 0; i < v.NumField(); i++ {
		if b, ok := v.Field(i).Addr().Interface().(*key.Binding); ok {
			out[snake(v.Type().Field(i).Name)] = b
		}
	}
	return out
}

// BindingNames are the names Remap knows, sorted.
func (k *KeyMap) BindingNames() []string {
	var out []string
	for n := range k.bindings() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Remap gives the named bindings new keys (config.yaml's keys:), the help
// following them. An unknown name is refused with the names there are.
func (k *KeyMap) Remap(keys map[string][]string) error {
	bs := k.bindings()
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		b, ok := bs[n]
		if !ok {
			return fmt.Errorf("keys: no binding %q; the bindings are %s", n, strings.Join(k.BindingNames(), ", "))
		}
		ks := keys[n]
		b.SetKeys(ks...)
		b.SetHelp(strings.Join(ks, "/"), b.Help().Desc)
	}
	return nil
}

// PaletteRoles are the role names Override knows (fg, dim, accent, ...).
func PaletteRoles() []string {
	t := reflect.TypeOf(Palette{})
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = snake(t.Field(i).Name)
	}
	return out
}

var colour = regexp.MustCompile(`^(#[0-9a-fA-F]{6}|[0-9]{1,3})$`)

// Override sets palette roles by name (fg, dim, accent, deny, ...) from
// config.yaml's palette:, each an ANSI colour number or #rrggbb.
func (p *Palette) Override(roles map[string]string) error {
	v := reflect.ValueOf(p).Elem()
	known := map[string]reflect.Value{}
	var names []string
	for i := 0; i < v.NumField(); i++ {
		n := snake(v.Type().Field(i).Name)
		known[n] = v.Field(i)
		names = append(names, n)
	}
	for role, c := range roles {
		f, ok := known[role]
		if !ok {
			return fmt.Errorf("palette: no role %q; the roles are %s", role, strings.Join(names, ", "))
		}
		if !colour.MatchString(c) {
			return fmt.Errorf("palette: %s: %q: want an ANSI colour number (0-255) or #rrggbb", role, c)
		}
		f.Set(reflect.ValueOf(lipgloss.Color(c)))
	}
	return nil
}
