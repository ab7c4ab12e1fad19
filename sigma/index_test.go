package sigma

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// matchers are each filter of rules as a pass checks it (index and
// order) and as the rule writes it (neither).
func matchers(rules []detect.Rule) (pass, written []func(*evidence.Event) bool, text []string, st *detect.FilterState) {
	st = &detect.FilterState{Shared: map[any]any{}}
	var fs []*Filter
	for i := range rules {
		fs = appendFilters(fs, &rules[i])
	}
	for _, f := range fs {
		pass = append(pass, f.ForPass(st))
		written = append(written, f.p.match)
		text = append(text, f.text)
	}
	return pass, written, text, st
}

// A filter answers alike whether its set's index turns an event away
// first and its parts are tried cheapest first, or it is tried as
// written: on every sample's events, and on values where lowercasing is
// not case folding.
func TestIndexedFiltersMatchAsWritten(t *testing.T) {
	set, err := Load(nil, "testdata/sigmahq")
	if err != nil {
		t.Fatal(err)
	}
	anchored := 0
	for i := range set.Rules {
		if f, ok := set.Rules[i].Filter.(*Filter); ok && f.ix != nil {
			anchored++
		}
	}
	if anchored < len(set.Rules)/3 {
		t.Errorf("%d of %d SigmaHQ rules anchored", anchored, len(set.Rules))
	}
	pass, written, text, st := matchers(set.Rules)
	var evs []evidence.Event
	for _, name := range []string{"busy-benign", "cloud-key-after-kill", "created-workload", "credential-theft",
		"egress-probe-exfil", "persistence-after-kill", "shared-volume-token", "eval-run-canaries", "eval-run-contained", "eval-run-kill", "eval-run-sweep"} {
		s := attributiontest.Sample(t, name)
		attribution.AttributeAll(s)
		evs = append(evs, s...)
	}
	matched := 0
	for i := range evs {
		st.Event = int64(i + 1)
		for j := range pass {
			got, want := pass[j](&evs[i]), written[j](&evs[i])
			if got != want {
				t.Fatalf("%s on %s (%s): index and order say %v, as written %v", text[j], evs[i].ID, evs[i].Message, got, want)
			}
			if got {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Fatal("no SigmaHQ rule matched a sample event: the comparison shows nothing")
	}

	rules := mustLoad(t, `title: kubectl get
id: 6d3f0c55-9d0e-4b8e-9a35-2c3b3d0f8a01
logsource: {category: process_creation, product: linux}
detection:
  sel: {Image|endswith: '/kubectl', CommandLine|contains: ' get'}
  condition: sel
level: high
---
title: a form upload
id: 6d3f0c55-9d0e-4b8e-9a35-2c3b3d0f8a03
logsource: {category: process_creation, product: linux}
detection:
  sel:
    - CommandLine|contains: ['--FORM ', ' --upload-file']
    - CommandLine|startswith: 'wput '
  condition: sel
level: medium
---
title: a kit agent
id: 6d3f0c55-9d0e-4b8e-9a35-2c3b3d0f8a02
logsource: {category: proxy}
detection:
  sel: {c-useragent: ['Kit/1.0', 'curl/8.5.0', 'Internet Explorer *', 'Go-http-client/?.?']}
  condition: sel
level: low
`)
	pass, written, _, st = matchers(rules)
	cases := []struct {
		ev   evidence.Event
		want bool
	}{
		{exec("a", "agent-1", 1, "/usr/bin/kubectl get pods"), true},
		{exec("b", "agent-1", 2, "/usr/bin/KUBECTL get pods"), true},
		// the Kelvin sign folds to k: not ASCII, so the index tries it
		{exec("c", "agent-1", 3, "/usr/bin/\u212aubectl get pods"), true},
		{exec("d", "agent-1", 4, "kubectl get pods"), false},
		{exec("e", "agent-1", 5, "/usr/bin/kubectlx get pods"), false},
		{exec("f", "agent-1", 6, "/usr/bin/kubectl delete pods"), false},
		{exec("k", "agent-1", 11, "curl --form x=@y http://h/"), true},
		{exec("l", "agent-1", 12, "curl --upload-filex"), true},
		{exec("m", "agent-1", 13, "WPUT file ftp://h/"), true},
		{exec("n", "agent-1", 14, "curl --for m"), false},
		{exec("o", "agent-1", 15, "curl K--form x"), true},
		{withUA(request("g", "agent-1", 7, "GET", "http://x/", "x"), "KIT/1.0"), true},
		{withUA(request("h", "agent-1", 8, "GET", "http://x/", "x"), "\u212ait/1.0"), true},
		{withUA(request("i", "agent-1", 9, "GET", "http://x/", "x"), "Kit/1.0 extra"), false},
		{withUA(request("j", "agent-1", 10, "GET", "http://x/", "x"), ""), false},
		{withUA(request("p", "agent-1", 16, "GET", "http://x/", "x"), "internet explorer 6"), true},
		{withUA(request("q", "agent-1", 17, "GET", "http://x/", "x"), "Go-http-client/1.1"), true},
		{withUA(request("r", "agent-1", 18, "GET", "http://x/", "x"), "Go-http-client/1.10"), false},
		{withUA(request("s", "agent-1", 19, "GET", "http://x/", "x"), "my Internet Explorer 6"), false},
	}
	for i, tc := range cases {
		st.Event = int64(100 + i)
		var got []bool
		for j := range pass {
			a, b := pass[j](&tc.ev), written[j](&tc.ev)
			if a != b {
				t.Errorf("%s: filter %d: index and order say %v, as written %v", tc.ev.ID, j, a, b)
			}
			got = append(got, a)
		}
		if slices.Contains(got, true) != tc.want {
			t.Errorf("%s (%s): matched %v, want %v", tc.ev.ID, fmt.Sprint(tc.ev.Cmdline, tc.ev.UserAgent), got, tc.want)
		}
	}
}

// withUA is an Envoy access log's request (Squid's default format
// carries no user agent) with the user agent ua.
func withUA(ev evidence.Event, ua string) evidence.Event {
	ev.Format, ev.UserAgent = "envoy", ua
	return ev
}

// The scanner finds the keys a value holds, as strings.Contains on the
// lowercased value does, overlapping and nested keys included.
func TestScannerFindsWhatContainsFinds(t *testing.T) {
	keys := []string{"a", "ab", "bab", "abab", "--data", "/etc/cron.d/", "c", "cron", "zz"}
	index := map[string][]int{}
	for i, k := range keys {
		index[k] = append(index[k], i)
	}
	sc := newScanner(index)
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := "abAB-cdroneZ/t. "
	for n := 0; n < 5000; n++ {
		b := make([]byte, rnd.IntN(24))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		v := string(b)
		got := map[int]bool{}
		sc.each(v, func(slots []int) {
			for _, s := range slots {
				got[s] = true
			}
		})
		for i, k := range keys {
			if want := strings.Contains(strings.ToLower(v), k); got[i] != want {
				t.Fatalf("%q holds %q: scanner says %v", v, k, got[i])
			}
		}
	}
}

// A field's scanner is bounded: the filters whose keys would take it
// past maxScanBytes are left unanchored, and still match as written.
func TestScannerIsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, "title: long list %d\nid: 6d3f0c55-9d0e-4b8e-9a35-2c3b3d0f8b0%d\nlogsource: {category: process_creation, product: linux}\n", i, i)
		b.WriteString("detection:\n  sel:\n    CommandLine|contains:\n")
		for j := range maxScanBytes / 2 / 16 {
			fmt.Fprintf(&b, "      - 'k%d-%013d'\n", i, j)
		}
		b.WriteString("  condition: sel\nlevel: low\n---\n")
	}
	rules := mustLoad(t, strings.TrimSuffix(b.String(), "---\n"))
	anchored := 0
	for i := range rules {
		if rules[i].Filter.(*Filter).ix != nil {
			anchored++
		}
	}
	if anchored != 2 {
		t.Errorf("%d of 3 rules of %d key bytes each anchored, want 2 within %d", anchored, maxScanBytes/2, maxScanBytes)
	}
	pass, written, _, st := matchers(rules)
	for i, tc := range []struct {
		cmd  string
		rule int // the rule that matches (-1: none)
	}{{"x k0-0000000000007 y", 0}, {"k2-0000000000011", 2}, {"k1-000000000001", -1}, {"nothing", -1}} {
		ev := exec(fmt.Sprint(i), "agent-1", i, tc.cmd)
		st.Event = int64(i + 1)
		for j := range pass {
			a, w := pass[j](&ev), written[j](&ev)
			if a != w {
				t.Errorf("%q, rule %d: %v, as written %v", tc.cmd, j, a, w)
			}
			if a != (j == tc.rule) {
				t.Errorf("%q, rule %d: matched %v", tc.cmd, j, a)
			}
		}
	}
}
