package report

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// RFC 9562's example of a name-based UUID (SHA-1, the DNS namespace).
func TestUUID5(t *testing.T) {
	if got := uuid5(uuidFrom("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), []byte("www.example.com")); got != "2ed6657d-e927-568b-95e1-2665a8aea6a2" {
		t.Errorf("uuid5 = %s", got)
	}
}

// The attributes OCSF 1.3 requires of a Detection Finding (class 2004),
// from ocsf/ocsf-schema (Apache-2.0): base_event.json (activity_id,
// category_uid, class_uid, metadata, severity_id, time, type_uid),
// finding.json (finding_info), finding_info.json (uid) and metadata.json
// (product, version).
var ocsfRequired = []string{"activity_id", "category_uid", "class_uid", "metadata.product.name", "metadata.version",
	"severity_id", "time", "type_uid", "finding_info.uid"}

func lookup(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func TestOCSFDetectionFindings(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	findings, _ := ws.CachedFindings(context.Background())
	var buf bytes.Buffer
	n, _, err := OCSF(context.Background(), ws, "credential-theft", &buf)
	if err != nil || n == 0 || n != len(findings) {
		t.Fatalf("%d findings exported of %d: %v", n, len(findings), err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, attr := range ocsfRequired {
			if v := lookup(m, attr); v == nil || v == "" || v == float64(0) {
				t.Errorf("line %d lacks %s", i+1, attr)
			}
		}
		f := findings[i]
		if m["class_uid"] != float64(2004) || m["category_uid"] != float64(2) || m["type_uid"] != float64(200401) {
			t.Errorf("line %d classified %v/%v/%v", i+1, m["category_uid"], m["class_uid"], m["type_uid"])
		}
		sev := map[string]float64{"info": 1, "low": 2, "medium": 3, "high": 4, "critical": 5}[f.Severity]
		if m["severity_id"] != sev || lookup(m, "finding_info.uid") != f.ID {
			t.Errorf("line %d: severity_id %v for %s, uid %v for %s", i+1, m["severity_id"], f.Severity, lookup(m, "finding_info.uid"), f.ID)
		}
		rel, _ := lookup(m, "finding_info.related_events").([]any)
		if len(rel) != len(f.Events) || len(rel) > 0 && rel[0].(map[string]any)["uid"] != f.Events[0] {
			t.Errorf("line %d: related events %v, want %v", i+1, rel, f.Events)
		}
		if f.Agent != "" && lookup(m, "actor.user.name") != f.Agent {
			t.Errorf("line %d: actor %v, want %s", i+1, lookup(m, "actor.user.name"), f.Agent)
		}
	}
}

var stixID = regexp.MustCompile(`^[a-z][a-z0-9-]*--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// refs collects every *_ref and *_refs value of an object.
func refs(o map[string]any) []string {
	var out []string
	for k, v := range o {
		switch {
		case strings.HasSuffix(k, "_ref"):
			out = append(out, v.(string))
		case strings.HasSuffix(k, "_refs"):
			for _, r := range v.([]any) {
				out = append(out, r.(string))
			}
		}
	}
	return out
}

func TestSTIXBundle(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	b, _, err := STIX(context.Background(), ws, time.Date(2026, 8, 11, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteSTIX(&buf, b)
	var bundle struct {
		Type    string           `json:"type"`
		ID      string           `json:"id"`
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(buf.Bytes(), &bundle); err != nil || bundle.Type != "bundle" || !stixID.MatchString(bundle.ID) {
		t.Fatalf("bundle: %v %s %s", err, bundle.Type, bundle.ID)
	}
	ids := map[string]bool{}
	for _, o := range bundle.Objects {
		id, _ := o["id"].(string)
		if !stixID.MatchString(id) || !strings.HasPrefix(id, o["type"].(string)+"--") || o["spec_version"] != "2.1" {
			t.Errorf("object %v: bad id or spec_version", o)
		}
		if ids[id] {
			t.Errorf("id %s twice", id)
		}
		ids[id] = true
	}
	kinds := map[string]int{}
	var credential bool
	for _, o := range bundle.Objects {
		kinds[o["type"].(string)]++
		for _, r := range refs(o) {
			if !ids[r] {
				t.Errorf("%s refers to %s, which the bundle lacks", o["id"], r)
			}
		}
		switch o["type"] {
		case "indicator":
			for _, k := range []string{"created", "modified", "pattern", "pattern_type", "valid_from", "x_cordon_first_seen", "x_cordon_last_seen"} {
				if o[k] == nil {
					t.Errorf("indicator %s lacks %s", o["id"], k)
				}
			}
			if o["pattern"] == "[user-account:user_id = 'px-s228']" {
				credential = true
			}
		case "observed-data":
			for _, k := range []string{"created", "modified", "first_observed", "last_observed", "number_observed", "object_refs"} {
				if o[k] == nil {
					t.Errorf("observed-data %s lacks %s", o["id"], k)
				}
			}
		}
	}
	if kinds["indicator"] == 0 || kinds["observed-data"] < kinds["indicator"] || kinds["relationship"] != kinds["indicator"] || !credential {
		t.Errorf("objects by type %v; an indicator for px-s228: %v", kinds, credential)
	}
}
