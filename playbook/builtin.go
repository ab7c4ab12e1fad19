package playbook

import (
	_ "embed"
	"fmt"
)

//go:embed builtin/agent-containment.yaml
var builtinYAML []byte

// BuiltinName is the name the built-in playbook's problems and origin
// carry.
const BuiltinName = "playbook/builtin/agent-containment.yaml"

// BuiltinYAML returns the source of the built-in playbook, for a team to
// copy and adapt.
func BuiltinYAML() []byte { return append([]byte(nil), builtinYAML...) }

// Builtin returns the agent-containment playbook cordon ships, each call a
// fresh copy. It is linted by the package's tests; a problem here is a
// bug in cordon, hence the panic.
func Builtin() *Playbook {
	pb, probs := Parse(BuiltinName, builtinYAML)
	if len(probs) > 0 {
		panic(fmt.Sprintf("built-in playbook: %v", Problems(probs)))
	}
	return pb
}
