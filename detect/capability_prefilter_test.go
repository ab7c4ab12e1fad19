package detect

import (
	"math/rand"
	"strings"
	"testing"
)

// The cheap first looks never turn away what their expressions match:
// random commands and paths built of the expressions' own words, their
// cases changed, with letters outside ASCII that fold to ASCII ones.
func TestFirstLooksKeepEveryMatch(t *testing.T) {
	parts := []string{"nohup", "setsid", "disown", "daemonize", "&", " &", "& ", `&"`, `& "`, "&&", "a", "-", ".", "/", " ", "\t", `"`,
		"curl http://x/?a=1&b=2", "cron", "crontab", "crontabs", "cron.d", "cron.daily", "/var/spool/cron", "/var/spool/at", "anacrontab",
		".timer", "systemd", ".service", "bashrc", "bash_profile", "zshrc", "/.profile", "autostart", "LaunchAgents", "init.d",
		"rc.local", "authorized_keys", ".git/hooks/", "/.local/bin/", "ſ", "K", "é", "SYSTEMD", "x", "ystemd", "authorized_", "eys"}
	rnd := rand.New(rand.NewSource(4))
	detached, later := 0, 0
	for range 200000 {
		var b strings.Builder
		for range rnd.Intn(5) + 1 {
			p := parts[rnd.Intn(len(parts))]
			if rnd.Intn(4) == 0 {
				p = strings.ToUpper(p)
			}
			b.WriteString(p)
		}
		s := b.String()
		if detachRe.MatchString(s) {
			detached++
			if !mayDetach(s) {
				t.Fatalf("%q is detached, and mayDetach turns it away", s)
			}
		}
		if scheduleRe.MatchString(s) || persistFileRe.MatchString(s) {
			later++
			if !mayRunLater(s) {
				t.Fatalf("%q runs later, and mayRunLater turns it away", s)
			}
		}
	}
	if detached < 1000 || later < 1000 {
		t.Fatalf("%d detached and %d later of the random strings: too few to tell", detached, later)
	}
	if mayDetach("curl 'http://x/?a=1&b=2'") || mayRunLater("/tmp/out.json") {
		t.Error("the first looks let through what no expression matches")
	}
}
