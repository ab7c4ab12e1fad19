package fleet

import (
	"context"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

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

// LedgerMetadata is the key of the events' stream's metadata that names
// the ledger's stream: set by the operator who made the stream
// (fleet/streams/cordon-events.json), read by every reader of it.
const LedgerMetadata = "cordon.ledger-stream"

// fromLedger says why a message whose events are in the ledger's format
// is not taken as the gateway's: when the events' stream names the
// ledger's stream, only a message the server sourced from it is.
func (cfg *ReaderConfig) fromLedger(h nats.Header, events []evidence.Event) error {
	if cfg.ledger == "" {
		return nil
	}
	ledger := false
	for i := range events {
		if events[i].Format == evidence.LedgerFormat {
			ledger = true
			break
		}
	}
	if !ledger {
		return nil
	}
	from := SourcedFrom(h)
	if from == cfg.ledger {
		return nil
	}
	if from == "" {
		from = "published to the stream itself"
	} else {
		from = "sourced from " + from
	}
	return fmt.Errorf("a record in the ledger's format %s, not from the ledger's stream %s: not taken as the gateway's", from, cfg.ledger)
}

// resolveLedger reads which stream the events' stream names the
// ledger's, once.
func (cfg *ReaderConfig) resolveLedger(ctx context.Context, js jetstream.JetStream) error {
	if cfg.ledgerRead {
		return nil
	}
	l, err := LedgerStreamOf(ctx, js, cfg.Stream)
	if err != nil {
		return err
	}
	cfg.ledger, cfg.ledgerRead = l, true
	return nil
}

// LedgerStreamOf is the stream records in the ledger's format on stream
// must come from ("" when stream names none: their subject alone says
// they are the ledger's). It refuses a stream that names one but on
// which a record could pass for the ledger's without coming from it: one
// that takes subjects of its own (whoever may publish there, or make the
// server publish there, could put one), or does not source it.
func LedgerStreamOf(ctx context.Context, js jetstream.JetStream, stream string) (string, error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return "", streamErr(js, stream, err)
	}
	cfg := s.CachedInfo().Config
	ledger := cfg.Metadata[LedgerMetadata]
	if ledger == "" {
		return "", nil
	}
	if len(cfg.Subjects) > 0 {
		return "", fmt.Errorf("stream %s names %s the ledger's stream (%s) but takes subjects %v, so a record on the ledger's subject need not come from it; give it no subject and only sources (fleet/streams/cordon-events.json)", stream, ledger, LedgerMetadata, cfg.Subjects)
	}
	for _, src := range cfg.Sources {
		if src != nil && src.Name == ledger {
			return ledger, nil
		}
	}
	return "", fmt.Errorf("stream %s names %s the ledger's stream (%s) but does not source it (fleet/streams/cordon-events.json)", stream, ledger, LedgerMetadata)
}
