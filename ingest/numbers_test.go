package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A number that does not fit its field (a byte count past 64 bits, a pid
// past 32, a port past 16) was read as 0, as the wrapped number the float
// conversion gave, or kept as no port could be: now the record is
// rejected, naming the field and the number. Each case is the same record
// with a number that fits, which must be an event, and one that does not.
func TestNumbersThatOverflowAreRejected(t *testing.T) {
	const (
		ledgerNet = `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"net_event","agent":"agent-1","direction":"egress","protocol":"https","dst_host":"exfil.example","dst_port":%s,"bytes_out":%s,"bytes_in":0}`
		falco     = `{"time":"2026-07-21T10:00:00.000000000Z","rule":"Outbound connection","priority":"Notice","output":"connect","output_fields":{"evt.type":"connect","proc.pid":%s,"proc.cmdline":"curl x","fd.name":"10.0.3.7:40000->203.0.113.9:%s"}}`
		tetragon  = `{"process_exec":{"process":{"pid":%s,"binary":"/bin/sh","arguments":"-c id","start_time":"2026-07-21T10:00:00Z"},"parent":{"pid":%s,"binary":"/bin/bash"}},"node_name":"n1","time":"2026-07-21T10:00:00Z"}`
		envoy     = `{"start_time":"2026-07-21T10:00:00.000Z","method":"PUT","path":"/up","protocol":"HTTP/1.1","response_code":200,"response_flags":"-","bytes_received":%s,"bytes_sent":0,"duration":3,"upstream_host":"203.0.113.9:443","downstream_remote_address":"10.0.3.7:%s","authority":"exfil.example"}`
		squid     = `1784628000.000      3 10.0.3.7 TCP_MISS/200 %s GET http://exfil.example:%s/x - HIER_DIRECT/203.0.113.9 text/plain`
		otlp      = `{"resourceSpans":[{"resource":{"attributes":[{"key":"process.pid","value":{"intValue":"%s"}}]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"GET","kind":3,"startTimeUnixNano":"1784628000000000000","attributes":[{"key":"server.address","value":{"stringValue":"exfil.example"}},{"key":"server.port","value":{"intValue":"%s"}}]}]}]}]}`
	)
	cases := []struct {
		name, format, record string
		good, bad            [2]string
		reason               string
	}{
		{"ledger bytes_out past 64 bits", "cordon-ledger", ledgerNet, [2]string{"443", "1024"}, [2]string{"443", "18446744073709551617"}, "bytes_out: 18446744073709551617 does not fit 64 bits"},
		{"ledger bytes_out as a float past 64 bits", "cordon-ledger", ledgerNet, [2]string{"443", "1e3"}, [2]string{"443", "1e30"}, "bytes_out: 1e30 does not fit 64 bits"},
		{"ledger bytes_out negative", "cordon-ledger", ledgerNet, [2]string{"443", "0"}, [2]string{"443", "-9223372036854775808"}, "bytes_out: -9223372036854775808 is outside 0 to"},
		{"ledger dst_port past 16 bits", "cordon-ledger", ledgerNet, [2]string{"65535", "1"}, [2]string{"65979", "1"}, "dst_port: 65979 is outside 0 to 65535"},
		{"falco pid past 32 bits", "falco", falco, [2]string{"2147483647", "443"}, [2]string{"4294967297", "443"}, "proc.pid: 4294967297 is outside 0 to 2147483647"},
		{"falco port in fd.name", "falco", falco, [2]string{"4242", "443"}, [2]string{"4242", "65979"}, "fd.name port: 65979 is outside"},
		{"tetragon pid", "tetragon", tetragon, [2]string{"4242", "1"}, [2]string{"2147483648", "1"}, "process.pid: 2147483648 is outside"},
		{"tetragon parent pid", "tetragon", tetragon, [2]string{"4242", "1"}, [2]string{"4242", "-1"}, "parent.pid: -1 is outside"},
		{"envoy bytes_received", "envoy", envoy, [2]string{"100", "5555"}, [2]string{"9223372036854775808", "5555"}, "bytes_received: 9223372036854775808 does not fit 64 bits"},
		{"envoy downstream port", "envoy", envoy, [2]string{"100", "5555"}, [2]string{"100", "4294967377"}, "downstream_remote_address port: 4294967377"},
		{"squid port in the URL", "squid", squid, [2]string{"2014", "8080"}, [2]string{"2014", "65616"}, "url port: 65616 is outside 0 to 65535"},
		{"otlp process.pid", "otlp", otlp, [2]string{"4242", "443"}, [2]string{"99999999999999999999", "443"}, "process.pid: 99999999999999999999 does not fit 64 bits"},
		{"otlp server.port", "otlp", otlp, [2]string{"4242", "443"}, [2]string{"4242", "70000"}, "server.port: 70000 is outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			rej := &memRejects{}
			dir := t.TempDir()
			write := func(name string, v [2]string) string {
				p := filepath.Join(dir, name)
				os.WriteFile(p, []byte(sprintf2(c.record, v)+"\n"), 0o644)
				return p
			}
			good, bad := write("good", c.good), write("bad", c.bad)
			res, err := Run(context.Background(), []string{good, bad}, Options{Store: st, Rejects: rej, Format: c.format})
			if err != nil {
				t.Fatal(err)
			}
			if res[0].Err != nil || res[0].Events != 1 || res[0].Rejects != 0 {
				t.Fatalf("the record with numbers that fit: %+v %v", res[0], rej.rs)
			}
			if res[1].Events != 0 || res[1].Rejects != 1 || len(rej.rs) != 1 || !strings.Contains(rej.rs[0].Reason, c.reason) {
				t.Errorf("%+v: rejects %+v, want one saying %q", res[1], rej.rs, c.reason)
			}
			if !strings.Contains(res[1].NoEvents, c.reason) {
				t.Errorf("NoEvents %q", res[1].NoEvents)
			}
		})
	}
}

// sprintf2 fills the two %s of a record.
func sprintf2(format string, v [2]string) string {
	a, b, _ := strings.Cut(format, "%s")
	b, c, _ := strings.Cut(b, "%s")
	return a + v[0] + b + v[1] + c
}
