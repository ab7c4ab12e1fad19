package main

import (
	"os"
	"strconv"

	"github.com/spf13/pflag"
)

// allowSharedEnv, set to a true value (1, true), does for every command
// what --allow-shared does for one: write into a workspace other users can
// read. For a team that shares a workspace through a group on purpose.
const allowSharedEnv = "CORDON_ALLOW_SHARED"

// allowSharedFlag adds --allow-shared to a writer's flags; what it returns
// says, once the flags are parsed, whether the flag or allowSharedEnv
// allows writing into a shared workspace.
func allowSharedFlag(fs *pflag.FlagSet) func() bool {
	b := fs.Bool("allow-shared", false, "write into a workspace other users can read (refused by default; or set "+allowSharedEnv+"=1)")
	return func() bool {
		env, _ := strconv.ParseBool(os.Getenv(allowSharedEnv))
		return *b || env
	}
}

// jsonFlag adds --json to a command that prints something; what says what
// the JSON holds.
func jsonFlag(fs *pflag.FlagSet, what string) *bool {
	return fs.Bool("json", false, what)
}
