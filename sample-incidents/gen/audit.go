package main

// Writers for the audit logs of the services credentials are used
// against: AWS CloudTrail (Records files as a trail delivers them to S3,
// one file per five minutes, each one line of minified JSON) and the
// Kubernetes API server's JSON audit log (one audit.k8s.io/v1 Event per
// line). Neither is attributed in truth.yaml: their records name a
// credential, not a sandbox; the scenario's README says whose each is.

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

const (
	awsAccount = "111122223333"
	awsRegion  = "eu-west-1"
)

// trailRec is one CloudTrail record and the time it sorts by.
type trailRec struct {
	t time.Time
	o obj
}

// awsID is who signed a call: an IAM user's key or a role session's.
type awsID struct {
	typ, arn, principal, key, user string
	issuer                         string // a role session's role ARN
}

// api is one call for the trail.
type api struct {
	source, name, ip, ua string
	params, resp         obj
	errCode, errMsg      string
	readOnly             bool
	data                 bool // an S3 data event (the trail logs them for the bucket)
	resources            []obj
}

func trailTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// cloudtrail records one call made at t.
func (w *world) cloudtrail(t time.Time, id awsID, c api) {
	ui := obj{{"type", id.typ}, {"principalId", id.principal}, {"arn", id.arn}, {"accountId", awsAccount}, {"accessKeyId", id.key}}
	ui = ui.opt("userName", id.user)
	if id.issuer != "" {
		ui = append(ui, kv{"sessionContext", obj{{"sessionIssuer", obj{{"type", "Role"}, {"principalId", strings.SplitN(id.principal, ":", 2)[0]},
			{"arn", id.issuer}, {"accountId", awsAccount}, {"userName", id.issuer[strings.LastIndexByte(id.issuer, '/')+1:]}}},
			{"attributes", obj{{"creationDate", trailTime(t.Add(-41 * time.Minute))}, {"mfaAuthenticated", "false"}}}}})
	}
	o := obj{{"eventVersion", "1.09"}, {"userIdentity", ui}, {"eventTime", trailTime(t)}, {"eventSource", c.source},
		{"eventName", c.name}, {"awsRegion", awsRegion}, {"sourceIPAddress", c.ip}, {"userAgent", c.ua}}
	o = o.opt("errorCode", c.errCode).opt("errorMessage", c.errMsg)
	var params any = nil
	if c.params != nil {
		params = c.params
	}
	var resp any = nil
	if c.resp != nil {
		resp = c.resp
	}
	o = append(o, kv{"requestParameters", params}, kv{"responseElements", resp},
		kv{"requestID", strings.ToUpper(w.hex(16))}, kv{"eventID", w.uuid()}, kv{"readOnly", c.readOnly})
	if len(c.resources) > 0 {
		o = append(o, kv{"resources", c.resources})
	}
	cat, mgmt := "Management", true
	if c.data {
		cat, mgmt = "Data", false
	}
	o = append(o, kv{"eventType", "AwsApiCall"}, kv{"managementEvent", mgmt}, kv{"recipientAccountId", awsAccount}, kv{"eventCategory", cat})
	if c.errCode == "" || c.data {
		o = append(o, kv{"tlsDetails", obj{{"tlsVersion", "TLSv1.3"}, {"cipherSuite", "TLS_AES_128_GCM_SHA256"},
			{"clientProvidedHostHeader", hostHeader(c)}}})
	}
	w.trail = append(w.trail, trailRec{t, o})
}

func hostHeader(c api) string {
	if c.source == "s3.amazonaws.com" {
		if b, ok := c.params.get("bucketName"); ok {
			return b + ".s3." + awsRegion + ".amazonaws.com"
		}
	}
	svc := strings.TrimSuffix(c.source, ".amazonaws.com")
	if svc == "iam" || svc == "sts" {
		return svc + ".amazonaws.com"
	}
	return svc + "." + awsRegion + ".amazonaws.com"
}

func (o obj) get(k string) (string, bool) {
	for _, p := range o {
		if p.k == k {
			s, ok := p.v.(string)
			return s, ok
		}
	}
	return "", false
}

// s3Call is an S3 data event on bucket for key (an object key or a prefix).
func s3Call(name, ip, ua, bucket, key string, errCode string) api {
	c := api{source: "s3.amazonaws.com", name: name, ip: ip, ua: ua, data: true, errCode: errCode,
		readOnly: strings.HasPrefix(name, "Get") || strings.HasPrefix(name, "List") || strings.HasPrefix(name, "Head")}
	c.params = obj{{"bucketName", bucket}, {"Host", bucket + ".s3." + awsRegion + ".amazonaws.com"}}
	if name == "ListObjects" {
		c.params = append(c.params, kv{"prefix", key})
	} else {
		c.params = append(c.params, kv{"key", key})
	}
	if errCode == "InvalidAccessKeyId" {
		c.errMsg = "The AWS Access Key Id you provided does not exist in our records."
	}
	c.resources = []obj{{{"type", "AWS::S3::Bucket"}, {"ARN", "arn:aws:s3:::" + bucket}}}
	if name != "ListObjects" {
		c.resources = append([]obj{{{"type", "AWS::S3::Object"}, {"ARN", "arn:aws:s3:::" + bucket + "/" + key}}}, c.resources...)
	}
	return c
}

// flushTrail delivers the trail's records: one file per five minutes of
// eventTime, written at the end of its window.
func (w *world) flushTrail() {
	sort.SliceStable(w.trail, func(i, j int) bool { return w.trail[i].t.Before(w.trail[j].t) })
	var window time.Time
	var batch []obj
	deliver := func() {
		if len(batch) == 0 {
			return
		}
		end := window.Add(5 * time.Minute)
		name := fmt.Sprintf("audit/cloudtrail/%s_CloudTrail_%s_%s_%s.json", awsAccount, awsRegion, end.Format("20060102T1504Z"), strings.ToUpper(w.hex(16)))
		w.emit(name, end, marshal(obj{{"Records", batch}}), who{})
		batch = nil
	}
	for _, r := range w.trail {
		if win := r.t.Truncate(5 * time.Minute); !win.Equal(window) {
			deliver()
			window = win
		}
		batch = append(batch, r.o)
	}
	deliver()
	w.trail = nil
}

// k8sUser is who a request to the API server authenticated as.
type k8sUser struct {
	name   string
	uid    string
	groups []string
	jti    string // a bound service-account token's credential id
	pod    string // the pod that token was bound to
	node   string
}

// k8sReq is one request to the API server.
type k8sReq struct {
	verb, uri          string
	resource, ns, name string
	sub, group         string
	ip, ua             string
	code               int
	reason, msg        string
	received           bool // also log the RequestReceived stage
	anonymous          bool // authentication failed: no user
	stage              string
	latency            time.Duration
}

func k8sTS(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// k8s writes a request's audit events (RequestReceived, then its
// completion) as the API server's log backend does.
func (w *world) k8s(t time.Time, u k8sUser, r k8sReq) {
	id := w.uuid()
	lat := r.latency
	if lat == 0 {
		lat = w.ms(2, 30)
	}
	user := obj{}
	if !r.anonymous {
		user = obj{{"username", u.name}}.opt("uid", u.uid)
		if len(u.groups) > 0 {
			user = append(user, kv{"groups", u.groups})
		}
		if u.jti != "" {
			ex := obj{{"authentication.kubernetes.io/credential-id", []string{"JTI=" + u.jti}}}
			if u.node != "" {
				ex = append(ex, kv{"authentication.kubernetes.io/node-name", []string{u.node}})
			}
			if u.pod != "" {
				ex = append(ex, kv{"authentication.kubernetes.io/pod-name", []string{u.pod}})
			}
			user = append(user, kv{"extra", ex})
		}
	}
	ev := func(stage string, at time.Time, done bool) obj {
		o := obj{{"kind", "Event"}, {"apiVersion", "audit.k8s.io/v1"}, {"level", "Metadata"}, {"auditID", id}, {"stage", stage},
			{"requestURI", r.uri}, {"verb", r.verb}, {"user", user}, {"sourceIPs", []string{r.ip}}, {"userAgent", r.ua}}
		if r.resource != "" {
			ref := obj{{"resource", r.resource}}.opt("namespace", r.ns).opt("name", r.name).opt("subresource", r.sub).opt("apiGroup", r.group)
			o = append(o, kv{"objectRef", append(ref, kv{"apiVersion", "v1"})})
		}
		if done {
			st := obj{{"metadata", obj{}}}.opt("status", map[bool]string{true: "Failure"}[r.code >= 400]).opt("message", r.msg).opt("reason", r.reason)
			o = append(o, kv{"responseStatus", append(st, kv{"code", r.code})})
		}
		o = append(o, kv{"requestReceivedTimestamp", k8sTS(t)}, kv{"stageTimestamp", k8sTS(at)})
		if done && !r.anonymous {
			dec, why := "allow", "RBAC: allowed by RoleBinding"
			if r.code == 403 {
				dec, why = "forbid", ""
			}
			o = append(o, kv{"annotations", obj{{"authorization.k8s.io/decision", dec}, {"authorization.k8s.io/reason", why}}})
		}
		return o
	}
	if r.received {
		w.emit("audit/k8s-audit.jsonl", t, marshal(ev("RequestReceived", t, false)), who{})
	}
	stage := r.stage
	if stage == "" {
		stage = "ResponseComplete"
	}
	w.emit("audit/k8s-audit.jsonl", t.Add(lat), marshal(ev(stage, t.Add(lat), true)), who{})
}
