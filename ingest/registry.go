package ingest

import (
	"fmt"
	"sort"

	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/falco"
	"github.com/cordon-ir/cordon/ingest/inspect"
	"github.com/cordon-ir/cordon/ingest/ledger"
	"github.com/cordon-ir/cordon/ingest/otlp"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/proxy"
	"github.com/cordon-ir/cordon/ingest/relay"
	"github.com/cordon-ir/cordon/ingest/tetragon"
)

// Parsers returns one of each known parser, in sniffing order: formats with
// the most specific signatures first.
func Parsers() []parse.Parser {
	return []parse.Parser{
		inspect.New(inspect.Options{}),
		relay.New(),
		ledger.New(),
		falco.New(),
		tetragon.New(),
		audit.NewCloudTrail(),
		audit.NewK8sAudit(),
		audit.NewGCPAudit(),
		audit.NewGitHubAudit(),
		otlp.New(),
		proxy.NewSquidAudit(),
		proxy.NewEnvoy(),
		proxy.NewSquidFirewall(),
		proxy.NewSquid(),
		proxy.NewEnvoyText(),
	}
}

// ByFormat returns the parser for a --format name.
func ByFormat(name string) (parse.Parser, error) {
	var names []string
	for _, p := range Parsers() {
		if p.Format() == name {
			return p, nil
		}
		names = append(names, p.Format())
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown format %q (known: %v)", name, names)
}
