package fleet

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultInFlight is how many published events may wait for their
// acknowledgement at once unless a Publisher is told otherwise: enough to
// keep a link of a few milliseconds busy, and a bound on what a slow or
// absent server makes the shipper hold.
const DefaultInFlight = 512

// DefaultAckTimeout is how long one acknowledgement may take before the
// publish counts as failed.
const DefaultAckTimeout = 30 * time.Second

// Publisher publishes events asynchronously with at most InFlight of them
// unacknowledged at a time. Its counts cover every Publish it ran.
type Publisher struct {
	js       jetstream.JetStream
	inFlight int
	// maxPayload is the server's limit on one message; a larger event is
	// handed to the oversize callback instead of failing the batch.
	maxPayload int64

	acked atomic.Int64 // acknowledged by the stream, duplicates included
	dups  atomic.Int64 // acknowledged as already on the stream
}

// NewPublisher publishes through js with at most inFlight (default
// DefaultInFlight) events awaiting an acknowledgement.
func NewPublisher(js jetstream.JetStream, inFlight int) *Publisher {
	if inFlight <= 0 {
		inFlight = DefaultInFlight
	}
	return &Publisher{js: js, inFlight: inFlight, maxPayload: js.Conn().MaxPayload()}
}

// Connect opens a connection to url (a comma-separated list of servers
// is one cluster) named name, and the JetStream context a Publisher with
// inFlight pending publishes needs: the client's own bound sits above the
// Publisher's, which waits for its oldest acknowledgement itself rather
// than let the client stall and fail a publish.
func Connect(url, name string, inFlight int) (*nats.Conn, jetstream.JetStream, error) {
	if inFlight <= 0 {
		inFlight = DefaultInFlight
	}
	opts, err := tlsFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect(url, append(opts, nats.Name(name), nats.MaxReconnects(-1))...)
	if err != nil {
		if strings.Contains(err.Error(), "tls") && os.Getenv("NATS_CERT") == "" {
			// a server that verifies its clients closes the connection
			// (under TLS 1.3, after the handshake the client saw succeed)
			return nil, nil, fmt.Errorf("connect to %s: %w (if the server verifies its clients, name a client certificate and its key in NATS_CERT and NATS_KEY)", redactURL(url), err)
		}
		return nil, nil, fmt.Errorf("connect to %s: %w", redactURL(url), err)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(2*inFlight), jetstream.WithPublishAsyncTimeout(DefaultAckTimeout))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// tlsFromEnv are the connection's TLS options from the environment, named
// as the nats CLI names them: NATS_CERT and NATS_KEY, a client
// certificate and its key (PEM) for a server that verifies its clients;
// NATS_CA, the CA bundle to check the server's certificate against
// instead of the system's roots. None set: nothing (a tls:// URL still
// checks the server against the system's roots).
func tlsFromEnv(getenv func(string) string) ([]nats.Option, error) {
	cert, key, ca := getenv("NATS_CERT"), getenv("NATS_KEY"), getenv("NATS_CA")
	var opts []nats.Option
	switch {
	case cert != "" && key != "":
		opts = append(opts, nats.ClientCert(cert, key))
	case cert != "" || key != "":
		return nil, fmt.Errorf("a client certificate needs both NATS_CERT and NATS_KEY")
	}
	if ca != "" {
		opts = append(opts, nats.RootCAs(ca))
	}
	return opts, nil
}

// redactURL drops the user and password from a server URL before it is
// shown or logged.
func redactURL(s string) string {
	var out []string
	for _, one := range strings.Split(s, ",") {
		if u, err := url.Parse(strings.TrimSpace(one)); err == nil && u.User != nil {
			u.User = nil
			one = u.String()
		}
		out = append(out, one)
	}
	return strings.Join(out, ",")
}

// Acked is how many events the stream acknowledged, Duplicates how many of
// those it already held (within its duplicate window).
func (p *Publisher) Acked() int64      { return p.acked.Load() }
func (p *Publisher) Duplicates() int64 { return p.dups.Load() }

// Oversize is an event too large for one message.
type Oversize struct {
	Event *evidence.Event
	Size  int
	Limit int64
}

// Publish sends events and waits until each is acknowledged or failed. It
// returns how many were acknowledged as new to the stream, and the first
// failure: a batch with a failure is not all on the stream, and whoever
// keeps a checkpoint must not move it past the batch. An event larger than
// the server's max_payload goes to oversize (when set) and is not sent.
func (p *Publisher) Publish(ctx context.Context, events []evidence.Event, oversize func(Oversize)) (fresh int, err error) {
	window := make([]jetstream.PubAckFuture, 0, min(p.inFlight, len(events)))
	var first error
	// settle waits for one acknowledgement. It does not give up when ctx
	// ends: what was sent is acknowledged or fails within the client's ack
	// timeout (DefaultAckTimeout), and is counted either way.
	settle := func(f jetstream.PubAckFuture) {
		select {
		case ack := <-f.Ok():
			p.acked.Add(1)
			if ack.Duplicate {
				p.dups.Add(1)
			} else {
				fresh++
			}
		case err := <-f.Err():
			if first == nil {
				first = fmt.Errorf("publish event %s: %w", f.Msg().Header.Get(HeaderMsgID), err)
			}
		}
	}
	for i := range events {
		if first == nil && ctx.Err() != nil {
			first = ctx.Err()
		}
		if first != nil {
			break // the batch fails; what is in flight is still counted
		}
		ev := &events[i]
		m, err := Encode(ev)
		if err != nil {
			first = err
			break
		}
		if p.maxPayload > 0 && int64(len(m.Data)) > p.maxPayload {
			if oversize != nil {
				oversize(Oversize{Event: ev, Size: len(m.Data), Limit: p.maxPayload})
			}
			continue
		}
		if len(window) == p.inFlight {
			settle(window[0])
			window = window[1:]
		}
		f, err := p.js.PublishMsgAsync(m)
		if err != nil {
			first = fmt.Errorf("publish event %s: %w", ev.ID, err)
			break
		}
		window = append(window, f)
	}
	for _, f := range window {
		settle(f)
	}
	return fresh, first
}
