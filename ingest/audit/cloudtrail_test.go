package audit_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

func TestCloudTrailGolden(t *testing.T) {
	for _, tc := range []struct {
		name, file      string
		events, rejects int
	}{
		{"awsdocs-log-file-examples-ec2", "awsdocs-log-file-examples-ec2.json", 3, 0},
		{"awsdocs-log-file-examples-iam-and-error", "awsdocs-log-file-examples-iam-and-error.json", 3, 0},
		{"awsdocs-event-reference-start-logging", "awsdocs-event-reference-start-logging.json", 1, 0},
		{"awsdocs-stepfunctions-eventbridge-put-object", "awsdocs-stepfunctions-eventbridge-put-object.json", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := parsetest.ParseFile(t, audit.NewCloudTrail(), parsetest.Sample("cloudtrail", tc.file))
			if len(c.Events) != tc.events || len(c.Rejects) != tc.rejects {
				t.Fatalf("got %d events, %d rejects (%v); want %d and %d", len(c.Events), len(c.Rejects), c.Rejects, tc.events, tc.rejects)
			}
			for _, ev := range c.Events {
				if ev.Source != evidence.SourceAudit || ev.Kind != evidence.KindAPICall || len(ev.Credential) != 1 {
					t.Errorf("%s: source %s kind %s credential %v", ev.Origin, ev.Source, ev.Kind, ev.Credential)
				}
			}
			parsetest.CheckGolden(t, tc.name, c)
		})
	}
}

func trailOne(t *testing.T, rec string) evidence.Event {
	t.Helper()
	evs, err := audit.NewCloudTrail().Parse(parse.Record{Data: []byte(rec), Line: 1})
	if err != nil {
		t.Fatalf("parse %s: %v", rec, err)
	}
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1", len(evs))
	}
	return evs[0]
}

const trailBase = `"eventVersion":"1.08","eventTime":"2026-10-14T11:02:05Z","awsRegion":"eu-west-1","userIdentity":{"type":"IAMUser","arn":"arn:aws:iam::111122223333:user/eval-agent-52","accessKeyId":"AKIAEVAL52EXAMPLE"}`

func TestCloudTrailFields(t *testing.T) {
	ev := trailOne(t, `{`+trailBase+`,"eventSource":"s3.amazonaws.com","eventName":"GetObject","sourceIPAddress":"198.51.100.23","readOnly":true}`)
	if ev.SrcIP != "198.51.100.23" || ev.DstHost != "s3.amazonaws.com" || ev.Method != "GetObject" || ev.User != "arn:aws:iam::111122223333:user/eval-agent-52" ||
		ev.Credential[0] != "AKIAEVAL52EXAMPLE" || ev.Decision != evidence.DecisionAllow || ev.Host != "eu-west-1" {
		t.Errorf("%+v", ev)
	}
	if want := "aws s3.amazonaws.com GetObject by arn:aws:iam::111122223333:user/eval-agent-52 (key AKIAEVAL52EXAMPLE) from 198.51.100.23 in eu-west-1"; ev.Message != want {
		t.Errorf("message %q\nwant    %q", ev.Message, want)
	}

	for _, tc := range []struct {
		code, decision string
		refused        bool
	}{
		{"InvalidClientTokenId", evidence.DecisionDeny, true},
		{"Client.AuthFailure", evidence.DecisionDeny, true},
		{"AccessDenied", evidence.DecisionDeny, false},
		{"Client.UnauthorizedOperation", evidence.DecisionDeny, false},
		{"NoSuchBucket", evidence.DecisionError, false},
	} {
		ev := trailOne(t, `{`+trailBase+`,"eventSource":"s3.amazonaws.com","eventName":"ListObjects","sourceIPAddress":"198.51.100.23","errorCode":"`+tc.code+`"}`)
		refused := false
		for _, tag := range ev.Tags {
			refused = refused || tag == credentials.TagCredRefused
		}
		if ev.Decision != tc.decision || refused != tc.refused || ev.Status != tc.code {
			t.Errorf("%s: decision %s refused %v status %s", tc.code, ev.Decision, refused, ev.Status)
		}
	}

	// a service calling on the principal's behalf is no address
	svc := trailOne(t, `{`+trailBase+`,"eventSource":"kms.amazonaws.com","eventName":"Decrypt","sourceIPAddress":"s3.amazonaws.com"}`)
	if svc.SrcIP != "" || !strings.Contains(svc.Message, "via s3.amazonaws.com") {
		t.Errorf("service caller: %q %q", svc.SrcIP, svc.Message)
	}
}

func TestCloudTrailRevocation(t *testing.T) {
	for _, tc := range []struct{ rec, want string }{
		{`"eventSource":"iam.amazonaws.com","eventName":"UpdateAccessKey","requestParameters":{"accessKeyId":"AKIAEVAL52EXAMPLE","status":"Inactive"}`, "AKIAEVAL52EXAMPLE"},
		{`"eventSource":"iam.amazonaws.com","eventName":"DeleteAccessKey","requestParameters":{"accessKeyId":"AKIAEVAL52EXAMPLE","userName":"eval-agent-52"}`, "AKIAEVAL52EXAMPLE"},
		{`"eventSource":"iam.amazonaws.com","eventName":"UpdateAccessKey","requestParameters":{"accessKeyId":"AKIAEVAL52EXAMPLE","status":"Active"}`, ""},
		{`"eventSource":"iam.amazonaws.com","eventName":"DeleteAccessKey","errorCode":"AccessDenied","requestParameters":{"accessKeyId":"AKIAEVAL52EXAMPLE"}`, ""},
	} {
		ev := trailOne(t, `{`+trailBase+`,"sourceIPAddress":"203.0.113.5",`+tc.rec+`}`)
		got := strings.Join(credentials.Revoked(ev.Tags), ",")
		if got != tc.want {
			t.Errorf("%s: revokes %q, want %q", tc.rec, got, tc.want)
		}
	}
}

// A Records file's runs of routine read-only calls are tagged routine and
// every call is an event: before, the calls between a run's first and
// last were counted and left out of the index. A call that reads a secret
// is never routine; neither is a run shorter than three calls.
func TestCloudTrailTagsRoutineCallsAndKeepsThem(t *testing.T) {
	rec := func(min, name string) string {
		return `{"eventVersion":"1.08","eventTime":"2026-10-14T11:` + min + `:00Z","eventSource":"ec2.amazonaws.com","eventName":"` + name +
			`","readOnly":true,"sourceIPAddress":"198.51.100.23","userIdentity":{"arn":"arn:aws:iam::111122223333:user/x","accessKeyId":"AKIAX"}}`
	}
	secret := `{"eventVersion":"1.08","eventTime":"2026-10-14T11:03:30Z","eventSource":"secretsmanager.amazonaws.com","eventName":"GetSecretValue","readOnly":true,"sourceIPAddress":"198.51.100.23","userIdentity":{"accessKeyId":"AKIAX"}}`
	other := strings.Replace(rec("06", "DescribeRegions"), "198.51.100.23", "203.0.113.10", 1) // one call from elsewhere
	file := `{"Records":[` + strings.Join([]string{rec("01", "DescribeInstances"), rec("02", "DescribeVolumes"), rec("03", "DescribeInstances"),
		secret, rec("04", "ListBuckets"), rec("05", "DescribeInstances"), other}, ",") + `]}`
	evs, err := audit.NewCloudTrail().Parse(parse.Record{Data: []byte(file), Line: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 7 {
		t.Fatalf("%d events, want every one of the 7 calls", len(evs))
	}
	var routine []string
	for _, ev := range evs {
		if slices.Contains(ev.Tags, parse.TagRoutine) {
			routine = append(routine, ev.Method)
		}
		if strings.Contains(ev.Message, "routine") || strings.Contains(ev.Message, "counted") {
			t.Errorf("message %q speaks of a fold", ev.Message)
		}
		if !strings.HasPrefix(ev.Raw, `{"eventVersion"`) || strings.Contains(ev.Raw, "Records") {
			t.Errorf("raw is not the record: %.60s", ev.Raw)
		}
	}
	if got := strings.Join(routine, " "); got != "DescribeInstances DescribeVolumes DescribeInstances ListBuckets DescribeInstances" {
		t.Errorf("tagged routine: %s", got)
	}
}

func TestCloudTrailRejectsSayWhy(t *testing.T) {
	for _, tc := range []struct{ rec, reason string }{
		{`not json`, "not a cloudtrail record"},
		{`{"eventVersion":"1.08","eventSource":"s3.amazonaws.com","eventName":"GetObject"}`, "no eventTime"},
		{`{"eventVersion":"1.08","eventTime":"2026-10-14T11:02:05Z","eventSource":"s3.amazonaws.com"}`, "no eventSource or eventName"},
		{`{"Records":[{"eventTime":"2026-10-14T11:02:05Z","eventSource":"s3.amazonaws.com","eventName":"x"},{"eventTime":"soon","eventSource":"s3.amazonaws.com","eventName":"x"}]}`, "record 2 of 2: bad time"},
		{`{"Records":[1]}`, "record 1 of 1: not a cloudtrail record"},
	} {
		_, err := audit.NewCloudTrail().Parse(parse.Record{Data: []byte(tc.rec), Line: 1})
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: error %v, want it to say %q", tc.rec, err, tc.reason)
		}
	}
	if _, err := audit.NewCloudTrail().Parse(parse.Record{Data: []byte(`{"Records":[]}`)}); err != parse.ErrSkip {
		t.Errorf("empty Records file: %v, want ErrSkip", err)
	}
}

func FuzzCloudTrail(f *testing.F) {
	parsetest.Fuzz(f, audit.NewCloudTrail(), parsetest.Sample("cloudtrail", "awsdocs-log-file-examples-ec2.json"),
		parsetest.Sample("cloudtrail", "awsdocs-log-file-examples-iam-and-error.json"),
		parsetest.Sample("cloudtrail", "awsdocs-stepfunctions-eventbridge-put-object.json"))
}
