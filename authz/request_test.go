package authz

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// What a check is read as: the keys attribution reads of a proxy's log
// line, Envoy's time when it sends one, and an action for the receipt
// that keeps neither the password nor the query string.
func TestQuestion(t *testing.T) {
	now := time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)
	envoyAt := time.Date(2026, 8, 11, 9, 20, 0, 0, time.UTC)
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name      string
		http      *authv3.AttributeContext_HttpRequest
		when      *timestamppb.Timestamp
		ext       map[string]string
		user      string
		host      string
		port      int
		at        time.Time
		container string
	}{
		{"basic login", &authv3.AttributeContext_HttpRequest{Host: "pypi.org:443", Headers: map[string]string{"proxy-authorization": basic("px-s228:hunter2")}}, nil, nil, "px-s228", "pypi.org", 443, now, ""},
		{"scheme in capitals, Envoy's time", &authv3.AttributeContext_HttpRequest{Host: "PyPI.org", Headers: map[string]string{"proxy-authorization": "BASIC " + base64.StdEncoding.EncodeToString([]byte("px-1:x"))}}, timestamppb.New(envoyAt), nil, "px-1", "pypi.org", 0, envoyAt, ""},
		{"a bearer token is no login", &authv3.AttributeContext_HttpRequest{Host: "[::1]:8080", Headers: map[string]string{"proxy-authorization": "Bearer px-s228"}}, nil, nil, "", "::1", 8080, now, ""},
		{"not base64", &authv3.AttributeContext_HttpRequest{Headers: map[string]string{"proxy-authorization": "Basic %%%"}}, nil, nil, "", "", 0, now, ""},
		{"raw headers", &authv3.AttributeContext_HttpRequest{HeaderMap: &corev3.HeaderMap{Headers: []*corev3.HeaderValue{{Key: "Proxy-Authorization", RawValue: []byte(basic("px-raw:p"))}}}}, nil, nil, "px-raw", "", 0, now, ""},
		{"sandbox from the gateway's configuration", &authv3.AttributeContext_HttpRequest{}, nil, map[string]string{ExtContainer: "c72fd8dff7e9"}, "", "", 0, now, "c72fd8dff7e9"},
	}
	for _, c := range cases {
		c.http.Path, c.http.Id, c.http.Method = "/simple/requests/?token=abc", "req-1", "GET"
		req := &authv3.CheckRequest{Attributes: &authv3.AttributeContext{
			Source: &authv3.AttributeContext_Peer{Address: &corev3.Address{Address: &corev3.Address_SocketAddress{
				SocketAddress: &corev3.SocketAddress{Address: "10.0.2.21"}}}},
			Request:           &authv3.AttributeContext_Request{Http: c.http, Time: c.when},
			ContextExtensions: c.ext,
		}}
		ev, vr := question(req, now)
		if ev.User != c.user || ev.DstHost != c.host || ev.DstPort != c.port || !ev.Time.Equal(c.at) || ev.Container != c.container || ev.SrcIP != "10.0.2.21" {
			t.Errorf("%s: user %q host %q port %d at %s container %q src %q", c.name, ev.User, ev.DstHost, ev.DstPort, ev.Time, ev.Container, ev.SrcIP)
		}
		var a action
		if err := json.Unmarshal(vr.Action, &a); err != nil || vr.ID != "req-1" {
			t.Fatalf("%s: action %s id %q: %v", c.name, vr.Action, vr.ID, err)
		}
		if strings.Contains(string(vr.Action), "token") || strings.Contains(string(vr.Action), "hunter2") || a.Path != "/simple/requests/" || a.User != c.user {
			t.Errorf("%s: the receipt's action %s", c.name, vr.Action)
		}
	}
}
