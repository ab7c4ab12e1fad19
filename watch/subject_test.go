package watch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go/jetstream"
)

// An agent name is evidence (the ledger under investigation wrote it):
// one holding the characters subjects give meaning to, whitespace and a
// terminal escape becomes one escaped subject token. Its findings reach a
// subscriber to exactly that agent's token, no wildcard in the name
// widens or splits the subject, and the token reads back as the name.
func TestHostileAgentNameIsOneSubjectToken(t *testing.T) {
	_, js := bus(t)
	const hostile = "agent-40.*.> \t\x1b]0;x\x07"
	evs := sampleEvents(t, "shared-volume-token")
	for i := range evs {
		if evs[i].Agent == "agent-40" {
			evs[i].Agent = hostile
		}
	}
	want := oneShot(t, evs)
	if want[0].Agent != hostile {
		t.Fatalf("the findings are %q's, not the renamed agent's", want[0].Agent)
	}
	publishEvents(t, js, evs)
	watch(t, js, Config{Durable: "hostile", Lateness: 2 * time.Second, Idle: 500 * time.Millisecond})
	sameFindings(t, js, want) // which checks each message's subject is Subject(severity, agent)

	ctx := context.Background()
	count := func(filter string) int {
		c, err := js.OrderedConsumer(ctx, DefaultFindingsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(info.NumPending)
	}
	tok := fleet.Token(hostile)
	if strings.ContainsAny(tok, ".*> \t\x1b") {
		t.Fatalf("token %q keeps a character subjects or terminals read", tok)
	}
	all := count(FindingsPrefix + ".>")
	if n := count(FindingsPrefix + ".*." + tok); n != all || n == 0 {
		t.Errorf("%d of %d finding messages on cordon.findings.*.%s", n, all, tok)
	}
	if n := count(FindingsPrefix + ".*.agent-40"); n != 0 {
		t.Errorf("%d finding messages on cordon.findings.*.agent-40: the name split the subject", n)
	}
	if back, err := fleet.Untoken(tok); err != nil || back != hostile {
		t.Errorf("Untoken(%q) = %q, %v", tok, back, err)
	}
}
