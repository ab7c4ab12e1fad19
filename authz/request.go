package authz

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"time"

	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/watch"
)

// Context extensions (set in Envoy's configuration, per listener, route
// or virtual host, so that nothing the agent sends can forge them) that
// name the sandbox a request came from.
const (
	ExtContainer = "cordon_container"
	ExtPod       = "cordon_pod"
)

// action is what a receipt keeps of a request: enough to find it in
// Envoy's access log (the request id) and say what was asked, never a
// secret (no query string, no header but the proxy login's name).
type action struct {
	Method    string `json:"method,omitempty"`
	Scheme    string `json:"scheme,omitempty"`
	Host      string `json:"host,omitempty"`
	Path      string `json:"path,omitempty"`
	SrcIP     string `json:"src_ip,omitempty"`
	User      string `json:"user,omitempty"`
	Container string `json:"container,omitempty"`
	Pod       string `json:"pod,omitempty"`
}

// question is a check as the watcher reads it: the request as a proxy
// event (what attribution reads of a proxy's log line) and the verdict
// request its receipt keeps.
func question(req *authv3.CheckRequest, now time.Time) (evidence.Event, watch.VerdictRequest) {
	attrs := req.GetAttributes()
	h := attrs.GetRequest().GetHttp()
	ev := evidence.Event{Source: evidence.SourceProxy, Format: "envoy", Kind: evidence.KindNetRequest, Time: now,
		Method: h.GetMethod(), TraceID: h.GetId()}
	if t := attrs.GetRequest().GetTime(); t.IsValid() && t.AsTime().Unix() > 0 {
		ev.Time = t.AsTime()
	}
	if sa := attrs.GetSource().GetAddress().GetSocketAddress(); sa != nil {
		ev.SrcIP = sa.GetAddress()
	}
	ev.User = proxyLogin(header(h, "proxy-authorization"))
	ext := attrs.GetContextExtensions()
	ev.Container, ev.Pod = ext[ExtContainer], ext[ExtPod]
	host, port := splitHost(h.GetHost())
	ev.DstHost, ev.DstPort = strings.ToLower(host), port
	path, _, _ := strings.Cut(h.GetPath(), "?")
	a := action{Method: ev.Method, Scheme: h.GetScheme(), Host: h.GetHost(), Path: path, SrcIP: ev.SrcIP, User: ev.User,
		Container: ev.Container, Pod: ev.Pod}
	b, _ := json.Marshal(a)
	return ev, watch.VerdictRequest{ID: h.GetId(), Action: b}
}

// header is a request header's value, from the map Envoy sends by
// default or the raw list it sends with encode_raw_headers.
func header(h *authv3.AttributeContext_HttpRequest, name string) string {
	if v, ok := h.GetHeaders()[name]; ok {
		return v
	}
	for _, hv := range h.GetHeaderMap().GetHeaders() {
		if strings.EqualFold(hv.GetKey(), name) {
			if v := hv.GetRawValue(); len(v) > 0 {
				return string(v)
			}
			return hv.GetValue()
		}
	}
	return ""
}

// proxyLogin is the user name of a Basic Proxy-Authorization, the login
// a Squid access log records as its user and attribution reads as a
// credential the session was issued; the password is never read.
func proxyLogin(v string) string {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return ""
	}
	user, _, _ := strings.Cut(string(b), ":")
	return user
}

// splitHost splits an authority ("pypi.org:443", "[::1]:80", "pypi.org").
func splitHost(s string) (string, int) {
	host, p, err := net.SplitHostPort(s)
	if err != nil {
		return strings.Trim(s, "[]"), 0
	}
	port, _ := strconv.Atoi(p)
	return host, port
}
