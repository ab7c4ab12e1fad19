package main

import (
	"fmt"
	"os"

	"github.com/cordon-ir/cordon/tui/config"
	"github.com/spf13/cobra"
)

// cmdConfig is `cordon config`: its subcommands say where the console's
// own settings are read from and whether they read.
func cmdConfig(e *env, c *cobra.Command) {
	c.Args = wantArgs(0, "a subcommand: path or check")
	c.RunE = func(*cobra.Command, []string) error {
		fmt.Fprintf(e.stderr, "usage: cordon config path | check\n")
		return fmt.Errorf("%w: config needs path or check", errUsage)
	}
}

// cmdConfigPath prints the file the console reads its settings from.
func cmdConfigPath(e *env, c *cobra.Command) {
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(*cobra.Command, []string) error {
		fmt.Fprintln(e.stdout, config.Path(os.Getenv))
		return nil
	}
}

// cmdConfigCheck reads the console config and says what it sets, or
// where it does not read.
func cmdConfigCheck(e *env, c *cobra.Command) {
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(*cobra.Command, []string) error {
		path := config.Path(os.Getenv)
		cfg, err := consoleConfig()
		if err != nil {
			return err
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
