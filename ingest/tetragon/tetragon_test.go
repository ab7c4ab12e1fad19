package tetragon_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
	"github.com/cordon-ir/cordon/ingest/tetragon"
)

var tetragonSamples = []struct {
	file            string
	events, rejects int
}{
	{"testdata-events.jsonl", 3, 0},
	{"docs-process-execution-0-process_exec.json", 1, 0},
	{"docs-process-execution-1-process_exit.json", 1, 0},
	{"docs-filename-access-0-process_kprobe.json", 1, 0},
	{"docs-advanced-process-execution-0-process_kprobe.json", 1, 0},
	{"oreilly-process_exec.json", 1, 0},
	{"oreilly-process_exit.json", 1, 0},
	{"oreilly-process_kprobe.json", 1, 0},
	{"oreilly-merlin-agent-go-connect.json", 1, 0},
}

func TestTetragonGolden(t *testing.T) {
	for _, tc := range tetragonSamples {
		name := "tetragon-" + strings.TrimSuffix(tc.file, filepath.Ext(tc.file))
		t.Run(name, func(t *testing.T) {
			c := parsetest.ParseFile(t, tetragon.New(), parsetest.Sample("tetragon", tc.file))
			if len(c.Events) != tc.events || len(c.Rejects) != tc.rejects {
				t.Fatalf("got %d events, %d rejects (%v); want %d and %d", len(c.Events), len(c.Rejects), c.Rejects, tc.events, tc.rejects)
			}
			parsetest.CheckGolden(t, name, c)
		})
	}
}

func TestTetragonTimeFallsBackToProcessStart(t *testing.T) {
	// testdata/events.json line 1 has no top-level time.
	c := parsetest.ParseFile(t, tetragon.New(), parsetest.Sample("tetragon", "testdata-events.jsonl"))
	ev := c.Events[0]
	if got := ev.Time.Format(time.RFC3339Nano); got != "2022-10-18T03:16:18.273546829Z" {
		t.Errorf("time %s, want process.start_time 2022-10-18T03:16:18.273546829Z", got)
	}
	if len(ev.Tags) == 0 || ev.Tags[0] != "time:process.start_time" {
		t.Errorf("fallback not tagged: %v", ev.Tags)
	}
	if got := c.Events[1].Time.Format(time.RFC3339Nano); got != "2022-10-18T03:16:21.373327754Z" {
		t.Errorf("line 2 time %s, want its own 2022-10-18T03:16:21.373327754Z", got)
	}
	if len(c.Events[1].Tags) > 0 && strings.HasPrefix(c.Events[1].Tags[0], "time:") {
		t.Errorf("line 2 has a time and was tagged as a fallback: %v", c.Events[1].Tags)
	}
}

func TestTetragonIdentity(t *testing.T) {
	c := parsetest.ParseFile(t, tetragon.New(), parsetest.Sample("tetragon", "oreilly-process_exec.json"))
	ev := c.Events[0]
	if ev.Container != "86eb9e29a77d432afc7a15b424db1d24a382f3caae26f860ab22df8cb5e96054" {
		t.Errorf("docker:// prefix not stripped: %q", ev.Container)
	}
	if ev.ExecID != "bWluaWt1YmU6MTA1NzU3MjgzNTAwNzk6MTE1MTUz" || ev.ParentExecID != "bWluaWt1YmU6MTA1NTYwMTY4NzQzNTU6MTE0NzU3" {
		t.Errorf("exec ids: %q %q", ev.ExecID, ev.ParentExecID)
	}
	if ev.Pid != 115153 || ev.Ppid != 114757 || ev.Host != "minikube" || ev.Pod != "tenant-jobs/elasticsearch-56f8fc6988-pb8c7" {
		t.Errorf("process identity: %+v", ev)
	}
	if ev.Message != "exec /usr/bin/curl www.google.com (pod tenant-jobs/elasticsearch-56f8fc6988-pb8c7, pid 115153)" {
		t.Errorf("message %q", ev.Message)
	}
	// Only the docker short id: use it.
	m := parsetest.ParseFile(t, tetragon.New(), parsetest.Sample("tetragon", "oreilly-merlin-agent-go-connect.json")).Events[0]
	if m.Container != "a51959123c3ba99a9f50a700" {
		t.Errorf("docker short id not used: %q", m.Container)
	}
}

// tgKprobe is a process_kprobe event by curl in pod default/xwing.
func tgKprobe(fn, args, extra string) string {
	return `{"process_kprobe":{"process":{"exec_id":"a2luZDoxMjM0OjEyMzQ=","pid":1234,"uid":1000,` +
		`"binary":"/usr/bin/curl","arguments":"-s http://169.254.169.254/","start_time":"2024-05-01T10:00:00Z",` +
		`"pod":{"namespace":"default","name":"xwing","container":{"id":"cri-o://ABCDEF0123456789"},"pod_labels":{"agent":"agent-7"}},` +
		`"parent_exec_id":"a2luZDoxMjAwOjEyMDA="},"parent":{"exec_id":"a2luZDoxMjAwOjEyMDA=","pid":1200},` +
		`"function_name":"` + fn + `","args":[` + args + `]` + extra + `},"node_name":"kind-control-plane","time":"2024-05-01T10:00:01.123456789Z"}`
}

func tetragonOne(t *testing.T, rec string) evidence.Event {
	t.Helper()
	evs, err := tetragon.New().Parse(parse.Record{Data: []byte(rec), Line: 1})
	if err != nil {
		t.Fatalf("parse %s: %v", rec, err)
	}
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1", len(evs))
	}
	return evs[0]
}

func TestTetragonTCPConnect(t *testing.T) {
	// Hand-written from KprobeSock in tetragon.proto: no verbatim OSS sample exists.
	sock := `{"sock_arg":{"family":"AF_INET","type":"SOCK_STREAM","protocol":"IPPROTO_TCP","saddr":"10.244.0.12","daddr":"169.254.169.254","sport":45678,"dport":80,"cookie":"18446635830289516736","state":"TCP_SYN_SENT"}}`
	ev := tetragonOne(t, tgKprobe("tcp_connect", sock, `,"action":"KPROBE_ACTION_POST","policy_name":"connect-egress"`))
	if ev.Kind != evidence.KindNetConnect || ev.SrcIP != "10.244.0.12" || ev.SrcPort != 45678 || ev.DstIP != "169.254.169.254" || ev.DstPort != 80 {
		t.Errorf("tcp_connect: kind %s %s:%d -> %s:%d", ev.Kind, ev.SrcIP, ev.SrcPort, ev.DstIP, ev.DstPort)
	}
	if ev.Policy != "connect-egress" || ev.Decision != "" || ev.Container != "abcdef0123456789" || ev.Pod != "default/xwing" ||
		ev.Pid != 1234 || ev.Ppid != 1200 || ev.User != "1000" || ev.Host != "kind-control-plane" {
		t.Errorf("tcp_connect fields: %+v", ev)
	}
	if ev.Time.Format(time.RFC3339Nano) != "2024-05-01T10:00:01.123456789Z" {
		t.Errorf("time %s", ev.Time.Format(time.RFC3339Nano))
	}
	if strings.Join(ev.Tags, ",") != "label:agent=agent-7" {
		t.Errorf("pod labels not kept as tags: %v", ev.Tags)
	}
	want := "connect 10.244.0.12:45678 -> 169.254.169.254:80 by /usr/bin/curl -s http://169.254.169.254/ via tcp_connect policy connect-egress (pod default/xwing, pid 1234)"
	if ev.Message != want {
		t.Errorf("message\n got %q\nwant %q", ev.Message, want)
	}

	killed := tetragonOne(t, tgKprobe("tcp_connect", sock, `,"action":"KPROBE_ACTION_SIGKILL"`))
	if killed.Decision != evidence.DecisionDeny || !strings.Contains(killed.Message, "action SIGKILL") {
		t.Errorf("SIGKILL: decision %q message %q", killed.Decision, killed.Message)
	}
}

func TestTetragonKprobeKind(t *testing.T) {
	file := func(p string) string { return `{"file_arg":{"path":"` + p + `"}}` }
	for _, tc := range []struct {
		name, fn, args, kind, path string
	}{
		{"tcp_sendmsg", "tcp_sendmsg", `{"sock_arg":{"saddr":"10.0.0.1","daddr":"1.1.1.1","sport":1,"dport":443}},{"int_arg":100}`, evidence.KindNetConnect, ""},
		{"tcp_close", "tcp_close", `{"sock_arg":{"saddr":"10.0.0.1","daddr":"1.1.1.1","sport":1,"dport":443}}`, evidence.KindNetConnect, ""},
		{"permission write", "security_file_permission", file("/etc/passwd") + `,{"int_arg":2}`, evidence.KindFileWrite, "/etc/passwd"},
		{"permission read", "security_file_permission", file("/etc/hosts") + `,{"int_arg":4}`, evidence.KindFileOpen, "/etc/hosts"},
		{"permission read credential", "security_file_permission", file("/root/.ssh/id_rsa") + `,{"int_arg":4}`, evidence.KindCredAccess, "/root/.ssh/id_rsa"},
		{"fd_install credential", "fd_install", `{"int_arg":3},` + file("/home/agent/.aws/credentials"), evidence.KindCredAccess, "/home/agent/.aws/credentials"},
		{"file_open token", "security_file_open", file("/var/run/secrets/kubernetes.io/serviceaccount/token"), evidence.KindCredAccess, "/var/run/secrets/kubernetes.io/serviceaccount/token"},
		{"sys_write", "__x64_sys_write", file("/tmp/out") + `,{"bytes_arg":"aGk="},{"size_arg":"2"}`, evidence.KindFileWrite, "/tmp/out"},
		{"openat for write", "__x64_sys_openat", `{"int_arg":-100},{"string_arg":"/tmp/drop"},{"int_arg":577}`, evidence.KindFileWrite, "/tmp/drop"},
		{"openat read only", "__x64_sys_openat", `{"int_arg":-100},{"string_arg":"/etc/hosts"},{"int_arg":0}`, evidence.KindFileOpen, "/etc/hosts"},
		{"openat credential", "__x64_sys_openat", `{"int_arg":-100},{"string_arg":"/etc/shadow"},{"int_arg":524288}`, evidence.KindCredAccess, "/etc/shadow"},
		{"bprm creds", "security_bprm_creds_from_file", file("/bin/busybox"), evidence.KindProcExec, "/bin/busybox"},
		{"unknown hook", "commit_creds", `{"process_credentials_arg":{"uid":0}}`, evidence.KindOther, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := tetragonOne(t, tgKprobe(tc.fn, tc.args, ""))
			if ev.Kind != tc.kind || ev.Path != tc.path {
				t.Errorf("kind %s path %q, want %s %q (message %q)", ev.Kind, ev.Path, tc.kind, tc.path, ev.Message)
			}
		})
	}
}

func TestTetragonEventKeys(t *testing.T) {
	const tail = `,"node_name":"n1","time":"2024-07-26T13:07:43.178407128Z"}`
	for _, tc := range []struct {
		name, rec, kind, status string
	}{
		{"exit by signal", `{"process_exit":{"process":{"pid":7,"binary":"/bin/sleep"},"signal":"SIGKILL"}` + tail, evidence.KindProcExit, "SIGKILL"},
		{"exit code", `{"process_exit":{"process":{"pid":7,"binary":"/bin/false"},"status":1}` + tail, evidence.KindProcExit, "1"},
		{"throttle", `{"process_throttle":{"type":"THROTTLE_START","cgroup":"session-429.scope"}` + tail, evidence.KindSensorGap, "THROTTLE_START"},
		{"rate limit", `{"rate_limit_info":{"number_of_dropped_process_events":"42"}` + tail, evidence.KindSensorGap, ""},
		{"legacy listen", `{"process_listen":{"process":{"pid":7,"binary":"/bin/nc"},"source_ip":"0.0.0.0","source_port":4444}` + tail, evidence.KindOther, ""},
		{"unknown event", `{"process_teleport":{"process":{"pid":7,"binary":"/bin/x"}}` + tail, evidence.KindOther, ""},
		{"lsm hook", `{"process_lsm":{"process":{"pid":7,"binary":"/bin/cat"},"function_name":"file_open","args":[{"file_arg":{"path":"/etc/shadow"}}]}` + tail, evidence.KindCredAccess, ""},
		{"camelCase client", `{"processKprobe":{"process":{"execId":"eA==","pid":7,"binary":"/bin/cat","pod":{"namespace":"ns","name":"p","podLabels":{"app.kubernetes.io/Name":"x"}}},` +
			`"functionName":"security_file_permission","args":[{"fileArg":{"path":"/tmp/a"}},{"intArg":2}],"action":"KPROBE_ACTION_OVERRIDE","policyName":"deny-write"},"nodeName":"n1","time":"2024-07-26T13:07:43Z"}`,
			evidence.KindFileWrite, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := tetragonOne(t, tc.rec)
			if ev.Kind != tc.kind || ev.Status != tc.status || ev.Host != "n1" {
				t.Errorf("kind %s status %q host %q, want %s %q n1 (message %q)", ev.Kind, ev.Status, ev.Host, tc.kind, tc.status, ev.Message)
			}
		})
	}
	camel := tetragonOne(t, `{"processKprobe":{"process":{"execId":"eA==","pid":7,"binary":"/bin/cat","pod":{"namespace":"ns","name":"p","podLabels":{"app.kubernetes.io/Name":"x"}}},`+
		`"functionName":"security_file_permission","args":[{"fileArg":{"path":"/tmp/a"}},{"intArg":2}],"action":"KPROBE_ACTION_OVERRIDE","policyName":"deny-write"},"nodeName":"n1","time":"2024-07-26T13:07:43Z"}`)
	if camel.ExecID != "eA==" || camel.Policy != "deny-write" || camel.Decision != evidence.DecisionDeny || camel.Pod != "ns/p" ||
		strings.Join(camel.Tags, ",") != "label:app.kubernetes.io/Name=x" {
		t.Errorf("camelCase: %+v", camel)
	}
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

func TestTetragonRejectsSayWhy(t *testing.T) {
	for _, tc := range []struct{ rec, reason string }{
		{`not json`, "not a tetragon event"},
		{`["process_exec"]`, "not a tetragon event"},
		{`{"node_name":"n1","time":"2024-07-26T13:07:43Z"}`, "no event object"},
		{`{"process_exec":{},"process_exit":{},"time":"2024-07-26T13:07:43Z"}`, "2 event keys (process_exec, process_exit)"},
		{`{"process_kprobe":{"function_name":"tcp_connect"},"node_name":"n1"}`, "process_kprobe event has no time"},
		{`{"process_exec":{"process":{"pid":1}},"time":"last tuesday"}`, "bad time"},
		{`{"process_exec":{"process":{"start_time":"0001-01-01T00:00:00Z"}}}`, "zero time"},
		{`{"process_exec":{"process":{"binary":7}},"time":"2024-07-26T13:07:43Z"}`, "tetragon process_exec"},
		{`{"process_exec":{},"time":7}`, "tetragon time is not a string"},
		{firstLine(t, parsetest.Sample("falco", "falcosidekick-readme-alert.json")), `unknown event "output_fields" and no node_name`},
	} {
		_, err := tetragon.New().Parse(parse.Record{Data: []byte(tc.rec), Line: 1})
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: error %v, want it to say %q", tc.rec, err, tc.reason)
		}
	}
}

func TestTetragonSniff(t *testing.T) {
	p := tetragon.New()
	for _, tc := range tetragonSamples {
		if !p.Sniff(parsetest.FirstJSON(t, parsetest.Sample("tetragon", tc.file))) {
			t.Errorf("tetragon sample %s not sniffed", tc.file)
		}
	}
	falco, _ := os.ReadDir(parsetest.Sample("falco"))
	others := parsetest.NotSensorSamples()
	for _, e := range falco {
		if strings.HasSuffix(e.Name(), "json") || strings.HasSuffix(e.Name(), "jsonl") {
			others = append(others, parsetest.Sample("falco", e.Name()))
		}
	}
	for _, f := range others {
		if p.Sniff(parsetest.FirstJSON(t, f)) {
			t.Errorf("%s sniffed as tetragon", f)
		}
	}
}

func FuzzTetragon(f *testing.F) {
	var files []string
	for _, tc := range tetragonSamples {
		files = append(files, parsetest.Sample("tetragon", tc.file))
	}
	parsetest.Fuzz(f, tetragon.New(), files...)
}
