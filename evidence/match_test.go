package evidence_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// parityQueries exercise the query syntax beyond the built-in rules.
var parityQueries = []string{
	`nohup`, `curl OR nohup`, `curl nohup`, `agent:agent-7 curl`, `sync-keeper.py`, `cmdline:/run\/secrets/`,
	`policy:"Schedule Cron Jobs"`, `policy:Schedule\ Cron\ Jobs`, `dst_host:*.s3.amazonaws.com`,
	`dst_host:GITHUB.COM`, `dst_host:github.com`, `dst_port:443`, `bytes_out:>1000000`,
	`bytes_in:<=500`, `time:>"2026-07-21T10:30:00Z"`, `-kind:proc_exec +source:sensor`, `-source:ledger`,
	`tags:after-session-end`, `credential:px-s228`, `user:*`, `user:px-s2?8`, `path:/cron.*/`,
	`message:"retry"`, `cmdline:"crontab"`, `"nohup"`, `kind:tool_call cmdline:/env|printenv/`,
	`attributed_via:src_ip -decision:allow`, `169.254.169.254`, `url:http`,
	`kind:(tool_call OR summary)`, `agent:agent-7 AND (decision:deny OR kind:summary)`, `NOT (source:ledger OR source:proxy)`,
	`(cmdline:curl OR cmdline:wget) -agent:agent-7`, `agent:/AGENT-7/i`, `cmdline:/CURL/`, `cmdline:CURL*`, `dst_host:HTTPBIN.ORG`,
	`kind:proc_exec cmdline:curl`, `id:* NOT kind:proc_exec`, `bytes_out:>=1 AND bytes_out:<100000`,
	`time:>="2026-07-21T10:00:00Z" AND time:<"2026-07-21T10:30:00Z" AND source:sensor`,
	`bytes_out:*`, `bytes_in:>0 -bytes_out:*`, `bytes_out:>255 AND bytes_out:<=65536`, `bytes_out:<0`,
	`id:/[0-9a-f]{4}.*/ source:proxy`, `decision:DENY`, `kind:TOOL_CALL -decision:Allow`, `source:SENS*`,
	`decision:/DENY|ERROR/`, `attributed_via:(SRC_IP OR Container)`,
}

// The in-memory matcher agrees with the Bleve index on every sample
// incident, for the queries above: a query means the same on a workspace
// and in memory. detect holds the built-in rules' queries to the same test.
func TestMatcherAgreesWithTheIndex(t *testing.T) {
	for _, name := range []string{"egress-probe-exfil", "credential-theft", "persistence-after-kill"} {
		t.Run(name, func(t *testing.T) {
			evs := loadSample(t, name)
			attribution.AttributeAll(evs)
			st := indexed(t, evs)
			for _, q := range parityQueries {
				pq, err := evidence.Parse(q)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				m, err := evidence.Compile(pq)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				var mem []string
				for i := range evs {
					if m.Match(&evs[i]) {
						mem = append(mem, evs[i].ID)
					}
				}
				hits, err := st.Search(context.Background(), evidence.Request{Query: pq, Limit: len(evs) + 1})
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				var idx []string
				for _, ev := range hits.Events {
					idx = append(idx, ev.ID)
				}
				sort.Strings(mem)
				sort.Strings(idx)
				if strings.Join(mem, ",") != strings.Join(idx, ",") {
					t.Errorf("%s: memory %d events, index %d", q, len(mem), len(idx))
				}
			}
		})
	}
}

// A word longer than the index keeps of one (1 KiB) is indexed as its
// start, and the matcher reads events the same way: a query means the
// same on both, whether it names the start, the whole word or a pattern.
func TestLongWordsMatchAsIndexed(t *testing.T) {
	word := strings.Repeat("a", 1500) + "credentials"
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	evs := []evidence.Event{
		{ID: "long", Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Cmdline: "cat " + word},
		{ID: "short", Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Cmdline: "cat credentials"},
	}
	st := indexed(t, evs)
	for _, q := range []string{
		"cmdline:" + word[:1024], "cmdline:" + word, "cmdline:credentials", word[:1024],
		"cmdline:/a+/", "cmdline:/a+credentials/", "cmdline:cat",
	} {
		pq := evidence.MustParse(q)
		m, err := evidence.Compile(pq)
		if err != nil {
			t.Fatal(err)
		}
		var mem []string
		for i := range evs {
			if m.Match(&evs[i]) {
				mem = append(mem, evs[i].ID)
			}
		}
		hits, err := st.Search(context.Background(), evidence.Request{Query: pq, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var idx []string
		for _, ev := range hits.Events {
			idx = append(idx, ev.ID)
		}
		sort.Strings(mem)
		sort.Strings(idx)
		if strings.Join(mem, ",") != strings.Join(idx, ",") {
			t.Errorf("%.40s…: memory %v, index %v", q, mem, idx)
		}
	}
}
