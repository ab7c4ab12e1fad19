package tetragon

import "testing"

// TestActionByNumber: clients that give a kprobe action as its enum number
// (Tetragon's KprobeAction) get the action's name, not another's.
func TestActionByNumber(t *testing.T) {
	for in, want := range map[string]string{
		"3": "KPROBE_ACTION_SIGKILL", "5": "KPROBE_ACTION_OVERRIDE", "13": "KPROBE_ACTION_NOTIFYENFORCER",
		"KPROBE_ACTION_POST": "KPROBE_ACTION_POST", "": "",
	} {
		if got := tetragonAction(in); got != want {
			t.Errorf("action %q: %q, want %q", in, got, want)
		}
	}
}
