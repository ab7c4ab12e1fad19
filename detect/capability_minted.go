package detect

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// Credentials an agent makes through AWS's API with a key it holds: an
// access key (CreateAccessKey), a console password (CreateLoginProfile), a
// role's session (AssumeRole). Each is a credential it created, seen in
// CloudTrail like any key; its end is the issuer's record (DeleteAccessKey,
// DeleteLoginProfile, the session's recorded expiry).

// mintRecord is the part of a CloudTrail record that says what was made.
type mintRecord struct {
	EventName         string `json:"eventName"`
	RequestParameters struct {
		UserName        string `json:"userName"`
		RoleArn         string `json:"roleArn"`
		RoleSessionName string `json:"roleSessionName"`
	} `json:"requestParameters"`
	ResponseElements struct {
		AccessKey struct {
			AccessKeyID string `json:"accessKeyId"`
			UserName    string `json:"userName"`
		} `json:"accessKey"`
		LoginProfile struct {
			UserName string `json:"userName"`
		} `json:"loginProfile"`
		Credentials struct {
			AccessKeyID string `json:"accessKeyId"`
			Expiration  string `json:"expiration"`
		} `json:"credentials"`
		ConsoleLogin string `json:"ConsoleLogin"`
	} `json:"responseElements"`
	UserIdentity struct {
		UserName string `json:"userName"`
	} `json:"userIdentity"`
}

// mintNames are the calls that make a credential.
var mintNames = []string{`"CreateAccessKey"`, `"CreateLoginProfile"`, `"AssumeRole"`}

// mintedKey records a credential an agent made with a key it held.
func (s *capScan) mintedKey(ev *evidence.Event) {
	if ev.Format != "cloudtrail" || ev.Decision != evidence.DecisionAllow || !containsAny(ev.Raw, mintNames) {
		return
	}
	var r mintRecord
	if json.Unmarshal([]byte(ev.Raw), &r) != nil {
		return
	}
	var id, kind, how string
	var expires time.Time
	switch r.EventName {
	case "CreateAccessKey":
		id, kind = r.ResponseElements.AccessKey.AccessKeyID, "aws-access-key"
		how = "CreateAccessKey for " + firstOf(r.ResponseElements.AccessKey.UserName, "its user")
	case "CreateLoginProfile":
		user := firstOf(r.ResponseElements.LoginProfile.UserName, r.RequestParameters.UserName)
		if user != "" {
			id, kind, how = loginKey(user), "aws-console-login", "CreateLoginProfile: a console password for "+user
		}
	case "AssumeRole":
		id, kind = r.ResponseElements.Credentials.AccessKeyID, "aws-session"
		how = "AssumeRole " + firstOf(r.RequestParameters.RoleArn, "a role")
		expires = trailExpiry(r.ResponseElements.Credentials.Expiration)
	}
	if id == "" {
		return
	}
	for _, agent := range s.holders(ev) {
		c := s.entry(agent, capability.Credential, id, capability.Acquired)
		if c.How != "" {
			continue
		}
		c.Provenance, c.CredKind = capability.ByCreate, kind
		c.How = "minted with " + strings.Join(ev.Credential, ", ") + " (" + how + ")"
		c.Acquired = []string{ev.ID}
		s.minted[id] = append(s.minted[id], c)
	}
	if !expires.IsZero() {
		// the issuer's own record of when the session stops working
		s.auth[id] = append(s.auth[id], capability.End{At: expires, How: "expires", ID: ev.ID, By: "AWS STS (its recorded expiration)",
			Source: ev.Source, Authority: capability.Authoritative})
		s.endRecorded(id)
	}
}

// mintedUse records a CloudTrail call made with a credential an agent
// minted: signed with its key, or a console sign-in as its user.
func (s *capScan) mintedUse(ev *evidence.Event) {
	if ev.Format != "cloudtrail" || len(s.minted) == 0 {
		return
	}
	creds := ev.Credential
	if strings.Contains(ev.Raw, `"ConsoleLogin"`) {
		var r mintRecord
		if json.Unmarshal([]byte(ev.Raw), &r) == nil && r.EventName == "ConsoleLogin" && r.UserIdentity.UserName != "" {
			creds = append(creds[:len(creds):len(creds)], loginKey(r.UserIdentity.UserName))
		}
	}
	for _, cred := range creds {
		for _, c := range s.minted[cred] {
			s.touch(c)
			c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, Format: ev.Format, From: ev.SrcIP, Refused: credRefused(ev)})
		}
	}
}

// loginKey names a user's console password as a capability.
func loginKey(user string) string { return "console-login:" + user }

// trailExpiry reads the expiration CloudTrail writes for STS credentials
// ("Oct 14, 2026, 11:05:00 AM", in UTC); zero when it cannot.
func trailExpiry(s string) time.Time {
	for _, layout := range []string{"Jan 2, 2006, 3:04:05 PM", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
