package falco_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/falco"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

func TestFalcoGolden(t *testing.T) {
	for _, tc := range []struct {
		name, file      string
		events, rejects int
	}{
		{"falco-website-alerts", "falco-website-alerts.jsonl", 15, 0},
		{"falco-website-metrics-snapshot", "falco-website-metrics-snapshot.json", 1, 0},
		{"falcosidekick-readme-alert", "falcosidekick-readme-alert.json", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := parsetest.ParseFile(t, falco.New(), parsetest.Sample("falco", tc.file))
			if len(c.Events) != tc.events || len(c.Rejects) != tc.rejects {
				t.Fatalf("got %d events, %d rejects (%v); want %d and %d", len(c.Events), len(c.Rejects), c.Rejects, tc.events, tc.rejects)
			}
			parsetest.CheckGolden(t, tc.name, c)
		})
	}
}

// falcoOne parses one hand-written alert.
func falcoOne(t *testing.T, rec string) evidence.Event {
	t.Helper()
	evs, err := falco.New().Parse(parse.Record{Data: []byte(rec), Line: 1})
	if err != nil {
		t.Fatalf("parse %s: %v", rec, err)
	}
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1", len(evs))
	}
	return evs[0]
}

func TestFalcoKind(t *testing.T) {
	const ts = `"time":"2024-03-01T10:00:00.000000001Z","priority":"Warning"`
	for _, tc := range []struct {
		name, rec, kind string
	}{
		{"execve evt.type", `{"rule":"Drop and execute new binary in container",` + ts + `,"output_fields":{"evt.type":"execve","proc.cmdline":"x"}}`, evidence.KindProcExec},
		{"shell rule", `{"rule":"Run shell untrusted",` + ts + `,"output_fields":{"proc.cmdline":"bash -i"}}`, evidence.KindProcExec},
		{"launch rule", `{"rule":"Launch Suspicious Network Tool in Container",` + ts + `,"output_fields":{"proc.cmdline":"nc -l 4444"}}`, evidence.KindProcExec},
		{"socket fd.name", `{"rule":"Unexpected outbound connection destination",` + ts + `,"output_fields":{"fd.name":"10.0.3.7:51234->203.0.113.9:443","evt.type":"connect"}}`, evidence.KindNetConnect},
		{"fd.sip only", `{"rule":"Outbound Connection to C2 Servers",` + ts + `,"output_fields":{"fd.sip":"203.0.113.9","fd.sport":8443}}`, evidence.KindNetConnect},
		{"read sensitive rule", `{"rule":"Read sensitive file untrusted",` + ts + `,"output_fields":{"fd.name":"/etc/shadow","evt.type":"openat"}}`, evidence.KindCredAccess},
		{"aws credentials path", `{"rule":"Unexpected file access",` + ts + `,"output_fields":{"fd.name":"/home/agent/.aws/credentials","evt.type":"openat"}}`, evidence.KindCredAccess},
		{"service account token", `{"rule":"Some custom rule",` + ts + `,"output_fields":{"fd.name":"/var/run/secrets/kubernetes.io/serviceaccount/token"}}`, evidence.KindCredAccess},
		{"write below rule", `{"rule":"Write below etc",` + ts + `,"output_fields":{"fd.name":"/etc/cron.d/agent"}}`, evidence.KindFileWrite},
		{"open for write flags", `{"rule":"Custom file watch",` + ts + `,"output_fields":{"fd.name":"/tmp/x","evt.type":"openat","evt.arg.flags":"O_WRONLY|O_CREAT"}}`, evidence.KindFileWrite},
		{"write to ssh dir is a write", `{"rule":"Modify ssh authorized keys",` + ts + `,"output_fields":{"fd.name":"/root/.ssh/authorized_keys"}}`, evidence.KindFileWrite},
		{"plain open", `{"rule":"Custom file watch",` + ts + `,"output_fields":{"fd.name":"/opt/app/config.yaml","evt.type":"openat"}}`, evidence.KindFileOpen},
		{"k8s audit", `{"rule":"Create Privileged Pod","source":"k8s_audit",` + ts + `,"output_fields":{"ka.user.name":"agent-sa","ka.verb":"create"}}`, evidence.KindAlert},
		{"plugin source", `{"rule":"Console Login Without MFA","source":"aws_cloudtrail",` + ts + `,"output_fields":{"ct.user":"x"}}`, evidence.KindAlert},
		{"nothing to go on", `{"rule":"Something odd",` + ts + `,"output":"10:00:00.000000001: Warning something odd"}`, evidence.KindAlert},
		{"drop notice", `{"rule":"Falco internal: syscall event drop",` + ts + `,"output":"Falco internal: syscall event drop. 12 system calls dropped in last second.","output_fields":{"n_drops":"12","n_evts":"40211"}}`, evidence.KindSensorGap},
		{"drop notice by output", `{"rule":"Falco internal",` + ts + `,"output":"Falco internal: syscall event drop. 1 system calls dropped in last second."}`, evidence.KindSensorGap},
		{"metrics", `{"rule":"Falco internal: metrics snapshot",` + ts + `,"output":"Falco metrics snapshot","output_fields":{"falco.num_evts":10}}`, evidence.KindSensorStats},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if ev := falcoOne(t, tc.rec); ev.Kind != tc.kind {
				t.Errorf("kind %s, want %s (message %q)", ev.Kind, tc.kind, ev.Message)
			}
		})
	}
}

func TestFalcoEvtTimeKeepsNanoseconds(t *testing.T) {
	// No ISO time: evt.time (beyond 2^53) must not pass through float64.
	ev := falcoOne(t, `{"rule":"Terminal shell in container","priority":"Notice","output_fields":{"evt.time":1685022245478445995,"proc.cmdline":"sh"}}`)
	if got := ev.Time.UnixNano(); got != 1685022245478445995 {
		t.Errorf("evt.time %d, want 1685022245478445995", got)
	}
	// The samples carry both; the ISO time wins and keeps its nanoseconds.
	c := parsetest.ParseFile(t, falco.New(), parsetest.Sample("falco", "falco-website-alerts.jsonl"))
	if got := c.Events[14].Time.Format(time.RFC3339Nano); got != "2023-05-25T13:44:05.478445995Z" {
		t.Errorf("time %s, want 2023-05-25T13:44:05.478445995Z", got)
	}
}

func TestFalcoFields(t *testing.T) {
	ev := falcoOne(t, `{"rule":"Terminal shell in container","priority":"Critical","hostname":"node-1","tags":["shell"],"time":"2024-03-01T10:00:00Z",
		"output":"10:00:00.000000000: Critical A shell was spawned (user=root)",
		"output_fields":{"container.id":"EE97D9C4186F","container.name":"nginx","k8s.ns.name":"default","k8s.pod.name":"nginx-abc",
		"proc.cmdline":"bash","proc.pid":4242,"proc.ppid":4200,"user.name":"root","evt.type":"execve"}}`)
	want := evidence.Event{Kind: evidence.KindProcExec, Policy: "Terminal shell in container", Severity: "critical", Host: "node-1",
		Container: "ee97d9c4186f", Pod: "default/nginx-abc", Cmdline: "bash", Pid: 4242, Ppid: 4200, User: "root",
		Message: "Terminal shell in container: bash in nginx (k8s default/nginx-abc)"}
	if ev.Kind != want.Kind || ev.Policy != want.Policy || ev.Severity != want.Severity || ev.Host != want.Host ||
		ev.Container != want.Container || ev.Pod != want.Pod || ev.Cmdline != want.Cmdline || ev.Pid != want.Pid ||
		ev.Ppid != want.Ppid || ev.User != want.User || ev.Message != want.Message || ev.Decision != "" {
		t.Errorf("got  %+v\nwant %+v", ev, want)
	}

	host := falcoOne(t, `{"rule":"Write below binary dir","priority":"Error","time":"2024-03-01T10:00:00Z","output_fields":{"container.id":"host","fd.name":"/bin/x"}}`)
	if host.Container != "" {
		t.Errorf("container.id host gave container %q, want none", host.Container)
	}

	v6 := falcoOne(t, `{"rule":"Outbound connection","priority":"Notice","time":"2024-03-01T10:00:00Z","output_fields":{"fd.name":"fd00::7:40000->2001:db8::1:443"}}`)
	if v6.SrcIP != "fd00::7" || v6.SrcPort != 40000 || v6.DstIP != "2001:db8::1" || v6.DstPort != 443 {
		t.Errorf("ipv6 tuple: %s:%d -> %s:%d", v6.SrcIP, v6.SrcPort, v6.DstIP, v6.DstPort)
	}

	// fd.sip is the server (destination) and fd.cip the client, as libsinsp defines them.
	cs := falcoOne(t, `{"rule":"Outbound connection","priority":"Notice","time":"2024-03-01T10:00:00Z","output_fields":{"fd.cip":"10.0.3.7","fd.cport":51000,"fd.sip":"203.0.113.9","fd.sport":443,"fd.sip.name":"exfil.example"}}`)
	if cs.SrcIP != "10.0.3.7" || cs.SrcPort != 51000 || cs.DstIP != "203.0.113.9" || cs.DstPort != 443 || cs.DstHost != "exfil.example" {
		t.Errorf("client/server: %+v", cs)
	}

	audit := falcoOne(t, `{"rule":"Disallowed K8s User","priority":"Warning","source":"k8s_audit","time":"2024-03-01T10:00:00Z","output_fields":{"ka.user.name":"yacht","ka.verb":"patch","ka.uri":"/api/v1/x","ka.response.code":"403"}}`)
	if audit.User != "yacht" || audit.Method != "patch" || audit.URL != "/api/v1/x" || audit.Status != "403" || audit.Decision != evidence.DecisionDeny {
		t.Errorf("k8s audit: %+v", audit)
	}

	plain := falcoOne(t, `{"rule":"Something odd","priority":"Warning","time":"2024-03-01T10:00:00Z","output":"10:00:00.000000001: Warning something odd (x=1)"}`)
	if plain.Message != "Something odd: something odd (x=1)" {
		t.Errorf("message kept the output prefix: %q", plain.Message)
	}
}

func TestFalcoRejectsSayWhy(t *testing.T) {
	for _, tc := range []struct{ rec, reason string }{
		{`not json`, "not a falco alert"},
		{`[1,2]`, "not a falco alert"},
		{`{"priority":"Warning","time":"2024-03-01T10:00:00Z","output":"x"}`, "no rule"},
		{`{"rule":"r","priority":"Warning","output":"x"}`, "no time"},
		{`{"rule":"r","priority":"Warning","time":"yesterday"}`, "bad time"},
		{`{"rule":"r","priority":"Warning","time":"0001-01-01T00:00:00Z"}`, "zero time"},
		{`{"rule":"r","priority":"Warning","output_fields":{"evt.time":1.6850222454784459e18}}`, "bad falco evt.time"},
		{`{"rule":"r","priority":"Warning","time":"2024-03-01T10:00:00Z","tags":"shell"}`, "not a falco alert"},
	} {
		_, err := falco.New().Parse(parse.Record{Data: []byte(tc.rec), Line: 1})
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: error %v, want it to say %q", tc.rec, err, tc.reason)
		}
	}
}

func TestFalcoSniff(t *testing.T) {
	p := falco.New()
	for _, f := range []string{"falco-website-alerts.jsonl", "falco-website-metrics-snapshot.json", "falcosidekick-readme-alert.json"} {
		if !p.Sniff(parsetest.FirstJSON(t, parsetest.Sample("falco", f))) {
			t.Errorf("falco sample %s not sniffed", f)
		}
	}
	tetra, _ := os.ReadDir(parsetest.Sample("tetragon"))
	others := parsetest.NotSensorSamples()
	for _, e := range tetra {
		if strings.HasSuffix(e.Name(), "json") || strings.HasSuffix(e.Name(), "jsonl") {
			others = append(others, parsetest.Sample("tetragon", e.Name()))
		}
	}
	for _, f := range others {
		if p.Sniff(parsetest.FirstJSON(t, f)) {
			t.Errorf("%s sniffed as falco", f)
		}
	}
}

func FuzzFalco(f *testing.F) {
	parsetest.Fuzz(f, falco.New(), parsetest.Sample("falco", "falco-website-alerts.jsonl"),
		parsetest.Sample("falco", "falco-website-metrics-snapshot.json"), parsetest.Sample("falco", "falcosidekick-readme-alert.json"))
}
