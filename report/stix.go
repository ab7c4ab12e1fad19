package report

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"path"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/incident"
)

// STIX 2.1 namespaces for deterministic identifiers (UUIDv5): the one the
// specification fixes for cyber-observables, and cordon's own for the
// objects it creates, so that two exports of one case name things alike.
var (
	stixSCONamespace    = uuidFrom("00abedb4-aa42-466c-9c01-fed23315a9b7")
	stixCordonNamespace = uuidFrom("6f0c8a7e-7d47-5c71-9d0e-c0a4d0c2b1e5")
)

// STIXObject is one STIX 2.1 object, as a map: the types differ in their
// properties, and the export writes only those each type defines.
type STIXObject map[string]any

// STIX builds the incident's indicators (redacted unless opts say
// Unredacted, before any id is derived from them) as a STIX 2.1 bundle: for each
// value an observable (domain-name, ipv4-addr, user-account, file with its
// directory, process) and an observed-data carrying its first and last
// sighting; for each value a finding names, an indicator based on that
// observed-data. Schedules and queued jobs have no STIX observable and are
// left out (the register lists them).
func STIX(ctx context.Context, ws *incident.Workspace, now time.Time, opts ...Option) (STIXObject, Redaction, error) {
	ins, red, err := RedactedIndicators(ctx, ws, opts...)
	if err != nil {
		return nil, red, err
	}
	ts := stixTime(now)
	identity := STIXObject{"type": "identity", "spec_version": "2.1", "id": sdoID("identity", "cordon"),
		"created": ts, "modified": ts, "name": "cordon", "identity_class": "system"}
	if b := optionsOf(opts).built; b.Cordon != "" {
		// what wrote the bundle, as the report's front page says it
		identity["description"] = "built by cordon " + b.Cordon + ": " + incident.CommandLine(b.Command)
	}
	objects := []STIXObject{identity}
	for _, in := range ins {
		scos, pattern := stixObservables(in)
		if scos == nil {
			continue
		}
		objects = append(objects, scos...)
		var refs []string
		for _, o := range scos {
			refs = append(refs, o["id"].(string))
		}
		first, last := in.First, in.Last
		if first.IsZero() {
			first, last = now, now
		}
		od := STIXObject{"type": "observed-data", "spec_version": "2.1", "id": sdoID("observed-data", in.Kind+"\x00"+in.Value),
			"created": ts, "modified": ts, "created_by_ref": identity["id"],
			"first_observed": stixTime(first), "last_observed": stixTime(last), "number_observed": max(in.Uses, 1),
			"object_refs": refs, "x_cordon_agents": in.Agents, "x_cordon_events": in.Events, "x_cordon_origin": in.Origin}
		objects = append(objects, od)
		if len(in.Findings) == 0 && in.Outcome != "denied" {
			continue
		}
		// A destination every try at which was refused is an indicator
		// too — a hunt or a block wants where the agent meant to go — but
		// of anomalous activity and with a low confidence: it shows
		// intent, not a place its data reached.
		ind := STIXObject{"type": "indicator", "spec_version": "2.1", "id": sdoID("indicator", in.Kind+"\x00"+in.Value),
			"created": ts, "modified": ts, "created_by_ref": identity["id"],
			"name": fmt.Sprintf("%s %s", in.Kind, in.Value), "description": in.How,
			"indicator_types": []string{stixIndicatorType(in)}, "pattern": pattern, "pattern_type": "stix",
			"valid_from": stixTime(first), "confidence": stixConfidence(in), "x_cordon_findings": orEmpty(in.Findings),
			"x_cordon_first_seen": stixTime(first), "x_cordon_last_seen": stixTime(last)}
		if in.Denied > 0 {
			ind["x_cordon_denied"] = in.Denied
		}
		if in.Outcome != "" {
			ind["x_cordon_outcome"] = in.Outcome
		}
		objects = append(objects, ind, STIXObject{"type": "relationship", "spec_version": "2.1",
			"id": sdoID("relationship", ind["id"].(string)+od["id"].(string)), "created": ts, "modified": ts,
			"relationship_type": "based-on", "source_ref": ind["id"], "target_ref": od["id"]})
	}
	return STIXObject{"type": "bundle", "id": sdoID("bundle", ws.Dir+ts), "objects": objects}, red, nil
}

// WriteSTIX writes the bundle as indented JSON.
func WriteSTIX(w io.Writer, b STIXObject) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

func stixIndicatorType(in Indicator) string {
	if in.Outcome == "denied" {
		return "anomalous-activity"
	}
	if in.Kind == IndicatorCredential {
		return "compromised"
	}
	return "malicious-activity"
}

// stixObservables are the cyber-observables of one indicator and the
// pattern that matches them; nil when STIX has no observable for its kind.
func stixObservables(in Indicator) ([]STIXObject, string) {
	one := func(typ string, props map[string]any, pattern string) ([]STIXObject, string) {
		o := STIXObject{"type": typ, "spec_version": "2.1", "id": scoID(typ, props)}
		for k, v := range props {
			o[k] = v
		}
		return []STIXObject{o}, pattern
	}
	switch in.Kind {
	case IndicatorDomain:
		return one("domain-name", map[string]any{"value": in.Value}, fmt.Sprintf("[domain-name:value = '%s']", stixQuote(in.Value)))
	case IndicatorIP:
		typ := "ipv4-addr"
		if a, err := netip.ParseAddr(in.Value); err == nil && a.Is6() && !a.Is4In6() {
			typ = "ipv6-addr"
		}
		return one(typ, map[string]any{"value": in.Value}, fmt.Sprintf("[%s:value = '%s']", typ, stixQuote(in.Value)))
	case IndicatorCredential:
		return one("user-account", map[string]any{"user_id": in.Value}, fmt.Sprintf("[user-account:user_id = '%s']", stixQuote(in.Value)))
	case IndicatorProcess:
		return one("process", map[string]any{"command_line": in.Value}, fmt.Sprintf("[process:command_line = '%s']", stixQuote(in.Value)))
	case IndicatorFile:
		if strings.HasSuffix(in.Value, "/") {
			// a directory (a listing of a secret store) is a directory
			// object, never a file
			dir := strings.TrimSuffix(in.Value, "/")
			if dir == "" {
				dir = "/"
			}
			return one("directory", map[string]any{"path": dir}, fmt.Sprintf("[directory:path = '%s']", stixQuote(dir)))
		}
		dir, name := path.Split(in.Value)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "/"
		}
		d := STIXObject{"type": "directory", "spec_version": "2.1", "id": scoID("directory", map[string]any{"path": dir}), "path": dir}
		f := STIXObject{"type": "file", "spec_version": "2.1", "name": name, "parent_directory_ref": d["id"]}
		f["id"] = scoID("file", map[string]any{"name": name, "parent_directory_ref": d["id"]})
		return []STIXObject{f, d}, fmt.Sprintf("[file:name = '%s' AND file:parent_directory_ref.path = '%s']", stixQuote(name), stixQuote(dir))
	}
	return nil, ""
}

// stixQuote escapes a string for a STIX pattern literal.
func stixQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

func stixTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// scoID is an observable's deterministic id: UUIDv5 over its
// id-contributing properties serialized with sorted keys.
func scoID(typ string, props map[string]any) string {
	b, _ := json.Marshal(props)
	return typ + "--" + uuid5(stixSCONamespace, b)
}

// sdoID is a deterministic id for an object cordon creates.
func sdoID(typ, name string) string {
	return typ + "--" + uuid5(stixCordonNamespace, []byte(typ+"\x00"+name))
}

// uuid5 is RFC 9562's name-based UUID with SHA-1.
func uuid5(ns [16]byte, name []byte) string {
	h := sha1.New()
	h.Write(ns[:])
	h.Write(name)
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

func uuidFrom(s string) [16]byte {
	var u [16]byte
	var b []byte
	fmt.Sscanf(strings.ReplaceAll(s, "-", ""), "%x", &b)
	copy(u[:], b)
	return u
}

// stixConfidence is STIX's 0–100 confidence: high for what the evidence
// shows the agent reached or held, low for a destination it only tried.
func stixConfidence(in Indicator) int {
	if in.Outcome == "denied" {
		return 20
	}
	return 85
}
