package fleet

import (
	"context"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// LedgerFormat is the tool gateway's ledger: its session records are the
// harness's word (a session ended "killed" is a kill).
const LedgerFormat = "cordon-ledger"

// sourceHeader is where the server says which stream a sourced message
// came from. It sets it itself: it removes one a message carried when it
// sources it, and refuses a publish that carries one.
const sourceHeader = "Nats-Stream-Source"

// SourcedFrom is the stream the server sourced a message from ("" when
// it was published to the stream itself). The header reads
// "NAME[:HASH] SEQ FILTER TRANSFORM SUBJECT".
func SourcedFrom(h nats.Header) string {
	v := h.Get(sourceHeader)
	name, _, _ := strings.Cut(v, " ")
	name, _, _ = strings.Cut(name, ":")
	return name
}

// fromLedger says why a message whose events are in the ledger's format
// is not taken as the gateway's: with cfg.LedgerStream set, only a
// message the server sourced from that stream is.
func (cfg *ReaderConfig) fromLedger(h nats.Header, events []evidence.Event) error {
	if cfg.LedgerStream == "" {
		return nil
	}
	ledger := false
	for i := range events {
		if events[i].Format == LedgerFormat {
			ledger = true
			break
		}
	}
	if !ledger {
		return nil
	}
	from := SourcedFrom(h)
	if from == cfg.LedgerStream {
		return nil
	}
	if from == "" {
		from = "published to the stream itself"
	} else {
		from = "sourced from " + from
	}
	return fmt.Errorf("a record in the ledger's format %s, not from the ledger's stream %s: not taken as the gateway's", from, cfg.LedgerStream)
}

// CheckLedgerStream refuses an events' stream on which a record could
// pass for the ledger's without coming from ledger: one that takes
// subjects of its own (whoever may publish there, or make the server
// publish there, could put one), or that does not source ledger.
func CheckLedgerStream(ctx context.Context, js jetstream.JetStream, stream, ledger string) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", stream, err)
	}
	cfg := s.CachedInfo().Config
	if len(cfg.Subjects) > 0 {
		return fmt.Errorf("the ledger's stream %s: stream %s takes subjects %v, so a record on the ledger's subject need not come from it; give the events' stream no subject and only sources (docs/nats/streams/cordon-events.json)", ledger, stream, cfg.Subjects)
	}
	for _, src := range cfg.Sources {
		if src != nil && src.Name == ledger {
			return nil
		}
	}
	return fmt.Errorf("the ledger's stream %s: stream %s does not source it (docs/nats/streams/cordon-events.json)", ledger, stream)
}
