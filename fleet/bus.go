package fleet

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The streams of the documented bus (docs/nats/cordon-bus.conf), one per
// account, as the server's stream configuration in JSON.
//
//go:embed streams/*.json
var busStreams embed.FS

// BusStream is one stream of the documented bus and the account that
// keeps it.
type BusStream struct {
	Account string // EVIDENCE, LEDGER or CORDON
	File    string // its configuration, under fleet/streams
	Config  jetstream.StreamConfig
}

// BusStreams are the documented bus's three streams, kept by replicas
// servers each: the evidence's and the ledger's, then the events' stream
// that sources both.
func BusStreams(replicas int) ([]BusStream, error) {
	var out []BusStream
	for _, s := range []struct{ account, file string }{
		{"EVIDENCE", "cordon-evidence.json"},
		{"LEDGER", "cordon-ledger.json"},
		{"CORDON", "cordon-events.json"},
	} {
		data, err := busStreams.ReadFile("streams/" + s.file)
		if err != nil {
			return nil, err
		}
		var cfg jetstream.StreamConfig
		if err := json.Unmarshal(data, &cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		cfg.Replicas = max(replicas, 1)
		out = append(out, BusStream{Account: s.account, File: s.file, Config: cfg})
	}
	return out, nil
}

// MakeBusStream creates s's stream in the account js connects as, or
// checks the one there: the same subjects, sources and ledger's stream
// are kept as they are (made false); other ones are refused, never
// changed.
func MakeBusStream(ctx context.Context, js jetstream.JetStream, s BusStream) (made bool, err error) {
	have, err := js.Stream(ctx, s.Config.Name)
	if err == nil {
		if why := busDiffers(have.CachedInfo().Config, s.Config); why != "" {
			return false, fmt.Errorf("stream %s is there with %s: change it by hand or remove it (the documented one is fleet/streams/%s)", s.Config.Name, why, s.File)
		}
		return false, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, streamErr(js, s.Config.Name, err)
	}
	if _, err := js.CreateStream(ctx, s.Config); err != nil {
		return false, fmt.Errorf("create stream %s: %w", s.Config.Name, err)
	}
	return true, nil
}

// busDiffers says how a stream there differs from the documented one in
// what decides whose records it holds.
func busDiffers(have, want jetstream.StreamConfig) string {
	if !slices.Equal(slices.Sorted(slices.Values(have.Subjects)), slices.Sorted(slices.Values(want.Subjects))) {
		return fmt.Sprintf("subjects %v, not %v", have.Subjects, want.Subjects)
	}
	if have.Metadata[LedgerMetadata] != want.Metadata[LedgerMetadata] {
		return fmt.Sprintf("%s %q, not %q", LedgerMetadata, have.Metadata[LedgerMetadata], want.Metadata[LedgerMetadata])
	}
	src := func(c jetstream.StreamConfig) map[string]string {
		m := map[string]string{}
		for _, s := range c.Sources {
			if s != nil && s.External != nil {
				m[s.Name] = s.External.APIPrefix + " " + s.External.DeliverPrefix
			} else if s != nil {
				m[s.Name] = ""
			}
		}
		return m
	}
	if h, w := src(have), src(want); !maps.Equal(h, w) {
		return fmt.Sprintf("sources %v, not %v", slices.Sorted(maps.Keys(h)), slices.Sorted(maps.Keys(w)))
	}
	return ""
}

// AccountOf is the account nc's user is in, as the server says
// ($SYS.REQ.USER.INFO, answered to any user).
func AccountOf(nc *nats.Conn) (string, error) {
	m, err := nc.Request("$SYS.REQ.USER.INFO", nil, 2*time.Second)
	if err != nil {
		return "", fmt.Errorf("which account: %w", err)
	}
	var r struct {
		Data struct {
			Account string `json:"account"`
		} `json:"data"`
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &r); err != nil {
		return "", fmt.Errorf("which account: %w", err)
	}
	if r.Error != nil || r.Data.Account == "" {
		return "", fmt.Errorf("which account: the server did not say (%s)", m.Data)
	}
	return r.Data.Account, nil
}

// BusReport is what CheckBus says of an events' stream.
type BusReport struct {
	Stream   string   `json:"stream"`
	Subjects []string `json:"subjects,omitempty"`
	// Ledger is the stream ledger records are taken from ("": by their
	// subject alone), LedgerErr why the stream's naming of it is refused.
	Ledger    string         `json:"ledger_stream,omitempty"`
	LedgerErr string         `json:"ledger_error,omitempty"`
	Messages  uint64         `json:"messages"`
	Sources   []SourceReport `json:"sources,omitempty"`
}

// SourceReport is one source of the events' stream as the server has it.
type SourceReport struct {
	Name   string        `json:"name"`
	Lag    uint64        `json:"lag"`
	Active time.Duration `json:"active_ns"` // since the server last heard from it (-1: never)
	Error  string        `json:"error,omitempty"`
}

// CheckBus reports how stream takes its events: its subjects, its
// sources and how far behind each is, and whose records count as the
// gateway's ledger.
func CheckBus(ctx context.Context, js jetstream.JetStream, stream string) (BusReport, error) {
	rep := BusReport{Stream: stream}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return rep, streamErr(js, stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return rep, streamErr(js, stream, err)
	}
	rep.Subjects, rep.Messages = info.Config.Subjects, info.State.Msgs
	for _, src := range info.Sources {
		if src == nil {
			continue
		}
		r := SourceReport{Name: src.Name, Lag: src.Lag, Active: src.Active}
		if src.Error != nil {
			r.Error = src.Error.Error()
		}
		rep.Sources = append(rep.Sources, r)
	}
	if rep.Ledger, err = LedgerStreamOf(ctx, js, stream); err != nil {
		rep.LedgerErr = err.Error()
	}
	return rep, nil
}
