package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/etc/xdg-test", "HOME": "/home/r"}
	if got := Path(func(k string) string { return env[k] }); got != "/etc/xdg-test/cordon/config.yaml" {
		t.Errorf("with XDG_CONFIG_HOME: %s", got)
	}
	env["XDG_CONFIG_HOME"] = "relative/not/allowed"
	if got := Path(func(k string) string { return env[k] }); got != "/home/r/.config/cordon/config.yaml" {
		t.Errorf("a relative XDG_CONFIG_HOME is ignored, as the spec says: %s", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(filepath.Join(dir, "none.yaml"))
	if err != nil || c.Path != "" {
		t.Errorf("a missing file: %+v, %v; want the defaults", c, err)
	}
	good := filepath.Join(dir, "config.yaml")
	os.WriteFile(good, []byte("aliases:\n  stop: step done contain.stop\nsearches:\n  deny: decision:deny\npalette:\n  accent: \"33\"\n"), 0o600)
	c, err = Load(good)
	if err != nil || c.Aliases["stop"] != "step done contain.stop" || c.Searches["deny"] != "decision:deny" || c.Path != good {
		t.Errorf("a good file: %+v, %v", c, err)
	}
	for name, body := range map[string]string{
		"typo":  "alises:\n  x: y\n",
		"alias": "aliases:\n  Bad Name: subject x\n",
		"keys":  "keys:\n  search: []\n",
	} {
		p := filepath.Join(dir, name+".yaml")
		os.WriteFile(p, []byte(body), 0o600)
		if _, err := Load(p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want ErrInvalid naming the file", name, err)
		}
	}
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o600)
	if _, err := Load(empty); err != nil {
		t.Errorf("an empty file: %v", err)
	}
}

// Every unknown key, binding and role is refused where it stands
// (file:line:col), all of them at once, with the nearest name.
func TestProblemsNameFileLineAndColumn(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	os.WriteFile(p, []byte("aliases:\n  stop: step done contain.stop\nalises:\n  x: y\n  # a comment\ncolours: {}\n"), 0o600)
	_, err := Load(p)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("%v, want ErrInvalid", err)
	}
	for _, want := range []string{
		p + `:3:1: unknown key "alises" (did you mean aliases?)`,
		p + `:6:1: unknown key "colours"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}

	os.WriteFile(p, []byte("keys:\n  search: [\"/\"]\n  serch: [\"ctrl+f\"]\npalette:\n    accent: \"33\"\n    dny: \"160\"\n"), 0o600)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckNames([]string{"search", "quit"}, []string{"accent", "deny"})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("%v, want ErrInvalid", err)
	}
	for _, want := range []string{
		p + `:3:3: keys: no binding "serch" (did you mean search?); the bindings are search, quit`,
		p + `:6:5: palette: no role "dny" (did you mean deny?)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `"search"`) || strings.Contains(err.Error(), `"accent"`) {
		t.Errorf("a known name is refused: %v", err)
	}
	if err := c.CheckNames([]string{"search", "serch"}, []string{"accent", "dny"}); err != nil {
		t.Errorf("every name known: %v", err)
	}

	os.WriteFile(p, []byte("aliases:\n  ok: subject agent-7\n  Bad Name: subject x\n"), 0o600)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p+`:3:3: aliases: "Bad Name"`) {
		t.Errorf("a bad alias name: %v, want its place", err)
	}
}
