package journal

import (
	"errors"
	"os"
	"os/user"
	"strconv"
)

// Ways a responder reaches a workspace, recorded as Actor.Via.
const (
	ViaCLI     = "cli"
	ViaConsole = "console"
	ViaSSH     = "ssh"
	ViaDrill   = "drill" // the scenario itself: injects of a tabletop drill
)

// ErrReadOnly: an observer tried to change the case.
var ErrReadOnly = errors.New("read-only: observers cannot change the case")

// Actor is who did what the journal records: a person (or the account they
// act through), how they came in, and for SSH the key they proved.
type Actor struct {
	Name    string `json:"name"`
	Via     string `json:"via"`
	Key     string `json:"key,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Observer may read the case but not change it: the journal refuses
	// every entry from an observer, so nothing they do can alter the case
	// whatever the console shows them.
	Observer bool `json:"-"`
}

// CurrentActor is the OS user running this process, arriving via via. It
// falls back to $USER, then to the numeric uid, so an entry always names
// someone even in a container without a passwd entry.
func CurrentActor(via string) Actor {
	return Actor{Name: currentUser(), Via: via}
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if name := os.Getenv("USER"); name != "" {
		return name
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
