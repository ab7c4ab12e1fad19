package ingest_test

import (
	"bufio"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

// A credential read is tagged cred-read (and cred-class:<class>) whichever
// source names it: a ledger read_file or shell tool call, a Falco file
// alert, a Tetragon exec or file kprobe, a proxy request to a metadata
// service; the event keeps its kind, and a command gets the location as
// its path. Writes are not reads.
func TestCredentialReadIsTaggedInEverySource(t *testing.T) {
	const (
		ledger = `{"v":1,"ts":"2026-08-11T09:33:40Z","run":"r-1","agent":"agent-40","session":"s-301","call_id":"c-1",`
		falco  = `{"time":"2026-08-11T09:33:41Z","rule":"Read sensitive file untrusted","priority":"Warning","output":"x",`
		tgProc = `"process":{"exec_id":"ZTox","pid":9,"binary":"/usr/bin/cat","arguments":"/home/agent/.netrc","start_time":"2026-08-11T09:33:42Z"}`
	)
	for _, tc := range []struct {
		name, rec     string
		kind, path    string
		tags          string // the credential tags, comma-separated; "" none
		otherTagsKept bool
	}{
		{"ledger read_file from a shared volume",
			ledger + `"type":"tool_call","tool":"read_file","args":{"path":"/mnt/shared/sessions/s-300/.git-credentials"}}`,
			"tool_call", "/mnt/shared/sessions/s-300/.git-credentials", "cred-read,cred-class:git", false},
		{"ledger shell reading two locations",
			ledger + `"type":"tool_call","tool":"bash","args":{"cmd":"cat ~/.aws/credentials /run/secrets/eval/s-300/proxy.env | base64"}}`,
			"tool_call", "~/.aws/credentials", "cred-read,cred-class:aws,cred-class:proxy", false},
		{"ledger metadata service",
			ledger + `"type":"tool_call","tool":"bash","args":{"cmd":"curl -s http://169.254.169.254/latest/meta-data/iam/"}}`,
			"tool_call", "", "cred-read,cred-class:cloud-metadata", false},
		{"ledger write_file is no read",
			ledger + `"type":"tool_call","tool":"write_file","args":{"path":"/home/agent/.netrc"}}`,
			"tool_call", "/home/agent/.netrc", "", false},
		{"ledger shell that only writes",
			ledger + `"type":"tool_call","tool":"bash","args":{"cmd":"echo machine x >> ~/.netrc"}}`,
			"tool_call", "", "", false},
		{"ledger project settings",
			ledger + `"type":"tool_call","tool":"read_file","args":{"path":"/work/mono/ui/.npmrc"}}`,
			"tool_call", "/work/mono/ui/.npmrc", "", false},
		{"falco fd.name",
			falco + `"tags":["T1555"],"output_fields":{"fd.name":"/run/secrets/eval/s-300/proxy.env","proc.cmdline":"cat /run/secrets/eval/s-300/proxy.env"}}`,
			"cred_access", "/run/secrets/eval/s-300/proxy.env", "cred-read,cred-class:proxy", true},
		{"falco metadata connection",
			`{"time":"2026-08-11T09:33:41Z","rule":"Outbound connection to cloud instance metadata service","priority":"Notice","output":"x",` +
				`"output_fields":{"fd.name":"10.0.2.21:42706->169.254.169.254:80","evt.type":"connect"}}`,
			"net_connect", "", "cred-read,cred-class:cloud-metadata", false},
		{"tetragon exec arguments",
			`{"process_exec":{` + tgProc + `},"node_name":"n1","time":"2026-08-11T09:33:42Z"}`,
			"proc_exec", "/home/agent/.netrc", "cred-read,cred-class:git", false},
		{"tetragon file kprobe",
			`{"process_kprobe":{` + tgProc + `,"function_name":"security_file_permission","args":[{"file_arg":{"path":"/home/agent/.config/gh/hosts.yml"}},{"int_arg":4}]},"node_name":"n1","time":"2026-08-11T09:33:42Z"}`,
			"cred_access", "/home/agent/.config/gh/hosts.yml", "cred-read,cred-class:github", false},
		{"tetragon file write is no read",
			`{"process_kprobe":{` + tgProc + `,"function_name":"security_file_permission","args":[{"file_arg":{"path":"/home/agent/.netrc"}},{"int_arg":2}]},"node_name":"n1","time":"2026-08-11T09:33:42Z"}`,
			"file_write", "/home/agent/.netrc", "", false},
		{"squid request to a metadata host",
			`1786440822.123    12 10.0.2.21 TCP_DENIED/403 3900 GET http://169.254.169.254/latest/meta-data/ px-s231 HIER_NONE/- text/html`,
			"net_request", "", "cred-read,cred-class:cloud-metadata", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tc.rec + "\n"))
			p, err := ingest.Sniff(br, ingest.Parsers())
			if err != nil {
				t.Fatal(err)
			}
			c := &parsetest.Collect{}
			if _, err := ingest.Stream(br, "x", p, ingest.Position{}, c, nil); err != nil {
				t.Fatal(err)
			}
			if len(c.Events) != 1 {
				t.Fatalf("%s: %d events, rejects %+v", p.Format(), len(c.Events), c.Rejects)
			}
			ev := c.Events[0]
			var cred, other []string
			for _, tag := range ev.Tags {
				if tag == "cred-read" || strings.HasPrefix(tag, "cred-class:") {
					cred = append(cred, tag)
				} else {
					other = append(other, tag)
				}
			}
			if ev.Kind != tc.kind || ev.Path != tc.path || strings.Join(cred, ",") != tc.tags || tc.otherTagsKept && len(other) == 0 {
				t.Errorf("%s: kind %s path %q tags %v; want %s %q %s", p.Format(), ev.Kind, ev.Path, ev.Tags, tc.kind, tc.path, tc.tags)
			}
		})
	}
}
