package bench

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
)

// Writers of raw records, one per format, appending to a line buffer the
// way the real tools write them (see ingest/testdata/formats).

// jstr appends s as a JSON string.
func jstr(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, c)...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func ledgerTS(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// protoTime renders a timestamp as protojson does.
func protoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

func (w *world) ledgerHead(b []byte, t time.Time, typ string, a *agent) []byte {
	b = append(b, `{"v":1,"ts":`...)
	b = jstr(b, ledgerTS(t))
	b = append(b, `,"type":`...)
	b = jstr(b, typ)
	b = append(b, `,"run":"r-0721-bench","agent":`...)
	b = jstr(b, a.name)
	b = append(b, `,"session":`...)
	return jstr(b, a.session)
}

func (w *world) sessionStart(b []byte, t time.Time, a *agent) []byte {
	b = w.ledgerHead(b, t, "session_start", a)
	b = append(b, `,"model":`...)
	b = jstr(b, a.model)
	b = append(b, `,"objective":`...)
	b = jstr(b, a.objective)
	b = fmt.Appendf(b, `,"sandbox":{"id":%q,"container_id":%q,"ip":%q,"host":%q},"credentials":[{"id":%q,"kind":"github-token","scope":"repo:read"}],"tools_allowed":["bash","read_file","write_file","http_get"],"egress_allowlist":["pypi.org","files.pythonhosted.org","github.com"]}`,
		a.sandbox, a.container[:12], a.ip, a.node, a.cred)
	return b
}

// ledger writes the next record of a's tool-call cycle: call, decision,
// result, then an effect (network, file write, summary or prompt).
func (w *world) ledger(b []byte, t time.Time, a *agent) []byte {
	step := a.step
	a.step = (a.step + 1) % 4
	switch step {
	case 0:
		a.calls++
		a.callID = "c-" + strconv.Itoa(a.calls)
		a.host = w.hosts[w.pickHost()]
		a.cmd = w.command(a.host)
		a.deny = w.rnd.Float64() < 0.12
		b = w.ledgerHead(b, t, "tool_call", a)
		b = append(b, `,"call_id":`...)
		b = jstr(b, a.callID)
		b = append(b, `,"tool":"bash","args":{"cmd":`...)
		b = jstr(b, a.cmd)
		return append(b, `},"read_only":false}`...)
	case 1:
		b = w.ledgerHead(b, t, "policy_decision", a)
		b = append(b, `,"call_id":`...)
		b = jstr(b, a.callID)
		if a.deny {
			b = append(b, `,"decision":"deny","policy":"egress.allowlist","reason":"destination not in the egress allowlist","target":`...)
		} else {
			b = append(b, `,"decision":"allow","policy":"tools.default","reason":"tool allowed for this session","target":`...)
		}
		b = jstr(b, a.host)
		return append(b, '}')
	case 2:
		b = w.ledgerHead(b, t, "tool_result", a)
		b = append(b, `,"call_id":`...)
		b = jstr(b, a.callID)
		status := "ok"
		if a.deny {
			status = "denied"
		} else if w.rnd.Intn(10) == 0 {
			status = "error"
		}
		b = append(b, `,"status":`...)
		b = jstr(b, status)
		b = append(b, `,"output_excerpt":`...)
		b = jstr(b, "exit status 0; 14 passed, 2 failed in "+strconv.Itoa(w.rnd.Intn(90))+".2s")
		return append(b, `,"output_digest":"sha256:`+a.container[:40]+`"}`...)
	}
	switch r := w.rnd.Intn(10); {
	case r < 6:
		h := w.pickHost()
		b = w.ledgerHead(b, t, "net_event", a)
		return fmt.Appendf(b, `,"direction":"egress","dst_host":%q,"dst_ip":%q,"dst_port":443,"protocol":"https","bytes_out":%d,"bytes_in":%d}`,
			w.hosts[h], w.hostIPs[h], 200+w.rnd.Intn(4000), 1000+w.rnd.Intn(500000))
	case r < 8:
		b = w.ledgerHead(b, t, "file_write", a)
		return fmt.Appendf(b, `,"path":"/work/app/src/module_%d.py","bytes":%d,"mode":"0644"}`, w.rnd.Intn(400), 100+w.rnd.Intn(9000))
	case r < 9:
		b = w.ledgerHead(b, t, "summary", a)
		b = append(b, `,"text":`...)
		b = jstr(b, "Tests still failing after "+strconv.Itoa(a.calls)+" calls; next I will try fetching the fixtures from "+a.host)
		return append(b, '}')
	}
	b = w.ledgerHead(b, t, "prompt", a)
	return fmt.Appendf(b, `,"packet_digest":"sha256:%s","tokens":%d,"excerpt":"You are an engineer working in /work/app..."}`, a.container[8:40], 2000+w.rnd.Intn(30000))
}

// squid writes one native access.log line from a's sandbox IP.
func (w *world) squid(b []byte, t time.Time, a *agent) []byte {
	h := w.pickHost()
	host, ip := w.hosts[h], w.hostIPs[h]
	u := t.UTC()
	b = fmt.Appendf(b, "%d.%03d %6d %s ", u.Unix(), u.Nanosecond()/1e6, 1+w.rnd.Intn(30000), a.ip)
	switch r := w.rnd.Float64(); {
	case r < 0.07:
		return fmt.Appendf(b, "TCP_DENIED/403 3950 CONNECT %s:443 - HIER_NONE/- text/html", host)
	case r < 0.6:
		return fmt.Appendf(b, "TCP_TUNNEL/200 %d CONNECT %s:443 - HIER_DIRECT/%s -", 500+w.rnd.Intn(900000), host, ip)
	}
	return fmt.Appendf(b, "TCP_MISS/200 %d GET http://%s/static/%d/index.html - HIER_DIRECT/%s text/html",
		300+w.rnd.Intn(90000), host, w.rnd.Intn(10000), ip)
}

type falcoRule struct{ name, prio, msg, tags string }

var falcoRules = []falcoRule{
	{"Terminal shell in container", "Notice", "A shell was spawned in a container with an attached terminal", `["T1059","container","maturity_stable","mitre_execution","shell"]`},
	{"Read sensitive file untrusted", "Warning", "Sensitive file opened for reading by non-trusted program", `["T1555","container","filesystem","host","maturity_stable","mitre_credential_access"]`},
	{"Launch Suspicious Network Tool in Container", "Notice", "Network tool launched in container", `["T1059","container","maturity_incubating","mitre_execution","network","process"]`},
	{"Contact cloud metadata service from container", "Notice", "Outbound connection to cloud instance metadata service", `["T1565","container","maturity_incubating","mitre_discovery","network"]`},
}

// falco writes one Falco JSON alert about a process in a's container.
func (w *world) falco(b []byte, t time.Time, a *agent) []byte {
	r := falcoRules[w.rnd.Intn(len(falcoRules))]
	u := t.UTC()
	a.pid++
	cmd := w.command(w.hosts[w.pickHost()])
	out := fmt.Sprintf("%s: %s %s | evt_type=execve user=root user_uid=0 process=bash proc_exepath=/usr/bin/bash parent=python3 command=%s terminal=34816 container_id=%s container_name=%s k8s_pod_name=%s k8s_ns_name=evals",
		u.Format("15:04:05.000000000"), r.prio, r.msg, cmd, a.container[:12], a.pod, a.pod)
	b = append(b, `{"hostname":`...)
	b = jstr(b, a.node)
	b = append(b, `,"output":`...)
	b = jstr(b, out)
	b = fmt.Appendf(b, `,"output_fields":{"container.id":%q,"container.image.repository":"ghcr.io/evals/sandbox","container.name":%q,"evt.time":%d,"evt.type":"execve","k8s.ns.name":"evals","k8s.pod.name":%q,"proc.cmdline":`,
		a.container[:12], a.pod, u.UnixNano(), a.pod)
	b = jstr(b, cmd)
	b = fmt.Appendf(b, `,"proc.exepath":"/usr/bin/bash","proc.name":"bash","proc.pid":%d,"proc.ppid":%d,"proc.pname":"python3","user.name":"root","user.uid":0},"priority":%q,"rule":%q,"source":"syscall","tags":%s,"time":%q}`,
		a.pid, a.pid-1, r.prio, r.name, r.tags, protoTime(u))
	return b
}

// tgProc renders a Tetragon process object of a's sandbox.
func (w *world) tgProc(b []byte, a *agent, pid int, binary, args string, started time.Time) []byte {
	exec := base64.StdEncoding.EncodeToString([]byte(a.node + ":" + strconv.FormatInt(started.UnixNano(), 10) + ":" + strconv.Itoa(pid)))
	b = fmt.Appendf(b, `{"exec_id":%q,"pid":%d,"uid":0,"cwd":"/work/app","binary":%q,"arguments":`, exec, pid, binary)
	b = jstr(b, args)
	b = fmt.Appendf(b, `,"flags":"execve clone","start_time":%q,"auid":4294967295,"pod":{"namespace":"evals","name":%q,"container":{"id":"containerd://%s","name":"sandbox","image":{"id":"ghcr.io/evals/sandbox@sha256:%s","name":"ghcr.io/evals/sandbox:2026.07"},"start_time":"2026-07-21T07:55:00Z","pid":%d},"pod_labels":{"app":"agent-sandbox","agent":%q}},"docker":%q}`,
		protoTime(started), a.pod, a.container, a.container, pid%500, a.name, a.container[:31])
	return b
}

// tetragon writes a process_exec, or a kprobe (connect or file access).
func (w *world) tetragon(b []byte, t time.Time, a *agent) []byte {
	a.pid++
	node := a.node
	if w.rnd.Intn(10) < 6 {
		cmd := w.command(w.hosts[w.pickHost()])
		b = append(b, `{"process_exec":{"process":`...)
		b = w.tgProc(b, a, a.pid, "/bin/sh", "-c "+cmd, t)
		b = append(b, `,"parent":`...)
		b = w.tgProc(b, a, a.pid-1, "/usr/bin/python3", "/opt/agent/run.py --session "+a.session, t.Add(-time.Minute))
		return fmt.Appendf(b, `},"node_name":%q,"time":%q}`, node, protoTime(t))
	}
	b = append(b, `{"process_kprobe":{"process":`...)
	b = w.tgProc(b, a, a.pid, "/usr/bin/curl", "-sS https://"+w.hosts[w.pickHost()]+"/", t.Add(-time.Second))
	b = append(b, `,"parent":`...)
	b = w.tgProc(b, a, a.pid-1, "/bin/sh", "-c curl", t.Add(-2*time.Second))
	if w.rnd.Intn(2) == 0 {
		h := w.pickHost()
		b = fmt.Appendf(b, `,"function_name":"tcp_connect","args":[{"sock_arg":{"family":"AF_INET","type":"SOCK_STREAM","protocol":"IPPROTO_TCP","saddr":%q,"daddr":%q,"sport":%d,"dport":443,"cookie":"%d","state":"TCP_SYN_SENT"}}],"action":"KPROBE_ACTION_POST","policy_name":"egress-connect","return_action":"KPROBE_ACTION_POST"}`,
			a.ip, w.hostIPs[h], 32768+w.rnd.Intn(28000), w.rnd.Int63())
	} else {
		paths := []string{"/etc/shadow", "/root/.aws/credentials", "/work/app/.env", "/var/run/secrets/kubernetes.io/serviceaccount/token"}
		b = fmt.Appendf(b, `,"function_name":"security_file_permission","args":[{"file_arg":{"path":%q,"permission":"-rw-r--r--"}},{"int_arg":4}],"return":{"int_arg":0},"action":"KPROBE_ACTION_POST","policy_name":"sensitive-files","return_action":"KPROBE_ACTION_POST"}`,
			w.pick(paths))
	}
	return fmt.Appendf(b, `,"node_name":%q,"time":%q}`, node, protoTime(t))
}
