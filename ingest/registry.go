package ingest

import (
	"fmt"
	"sort"
)

// Parsers returns one of each known parser, in sniffing order: formats with
// the most specific signatures first.
func Parsers() []Parser {
	return []Parser{
		NewInspect(InspectOptions{}),
		NewLedger(),
		NewFalco(),
		NewTetragon(),
		NewOTLP(),
		NewSquidAudit(),
		NewEnvoy(),
		NewSquidFirewall(),
		NewSquid(),
		NewEnvoyText(),
	}
}

// ByFormat returns the parser for a --format name.
func ByFormat(name string) (Parser, error) {
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
