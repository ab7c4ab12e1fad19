package main

import (
	"fmt"
	"os"

	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/config"
	"github.com/spf13/cobra"
)

// cmdConfig is `cordon config`: its subcommands say where the console's
// own settings are read from and whether they read; alone it lists them.
func cmdConfig(*env, *cobra.Command) {}

// cmdConfigPath prints the file the console reads its settings from.
func cmdConfigPath(e *env, c *cobra.Command) {
	asJSON := jsonFlag(c.Flags(), `{"path": ...}`)
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(*cobra.Command, []string) error {
		path := config.Path(os.Getenv)
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(map[string]string{"path": path})
		}
		fmt.Fprintln(e.stdout, path)
		return nil
	}
}

// cmdConfigCheck reads the console config and says what it sets, or
// where it does not read.
func cmdConfigCheck(e *env, c *cobra.Command) {
	asJSON := jsonFlag(c.Flags(), "what the file sets, as JSON")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(*cobra.Command, []string) error {
		path := config.Path(os.Getenv)
		cfg, err := consoleConfig()
		if err != nil {
			return err
		}
		// the names the console has: a remap of a binding it does not
		// have would be ignored, so it is refused here, where it stands
		if err := cfg.CheckNames(common.DefaultKeyMap().BindingNames(), common.PaletteRoles()); err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(map[string]any{"path": path, "found": cfg.Path != "",
				"keys": len(cfg.Keys), "aliases": len(cfg.Aliases), "searches": len(cfg.Searches), "palette": len(cfg.Palette)})
		}
		if cfg.Path == "" {
			fmt.Fprintf(e.stdout, "%s: not there; the console uses its defaults\n", path)
			return nil
		}
		fmt.Fprintf(e.stdout, "%s: %d key remaps, %d aliases, %d saved searches, %d palette colours\n",
			path, len(cfg.Keys), len(cfg.Aliases), len(cfg.Searches), len(cfg.Palette))
		return nil
	}
}

// consoleConfig reads the console config from where config path says.
func consoleConfig() (config.Config, error) {
	return config.Load(config.Path(os.Getenv))
}
