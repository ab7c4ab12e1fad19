package detect

import (
	"encoding/json"
	"strings"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// k8sCreated is what a Kubernetes audit record of a successful create
// says of the object: its kind, namespace and name, the service account
// it runs as, and its owner (a job's pod names its job).
type k8sCreated struct {
	resource, namespace, name, runsAs, ownerJob string
}

// k8sRecord is the part of a Kubernetes audit event the workload scan
// reads.
type k8sRecord struct {
	Verb      string `json:"verb"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	User struct {
		Extra map[string][]string `json:"extra"`
	} `json:"user"`
	RequestObject  *k8sObject `json:"requestObject"`
	ResponseObject *k8sObject `json:"responseObject"`
}

type k8sObject struct {
	Metadata struct {
		Name            string `json:"name"`
		GenerateName    string `json:"generateName"`
		OwnerReferences []struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		ServiceAccountName string `json:"serviceAccountName"`
		Template           struct {
			Spec struct {
				ServiceAccountName string `json:"serviceAccountName"`
			} `json:"spec"`
		} `json:"template"`
		JobTemplate struct {
			Spec struct {
				Template struct {
					Spec struct {
						ServiceAccountName string `json:"serviceAccountName"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	} `json:"spec"`
}

// workloadResources are the Kubernetes objects that run on their own.
var workloadResources = map[string]bool{"pods": true, "jobs": true, "cronjobs": true, "deployments": true, "statefulsets": true, "daemonsets": true, "replicasets": true}

// parseK8s reads the workload fields of a Kubernetes audit record; ok is
// false for a record that is not one.
func parseK8s(ev *evidence.Event) (r k8sRecord, ok bool) {
	if ev.Format != "k8s-audit" || !strings.Contains(ev.Raw, `"objectRef"`) && !strings.Contains(ev.Raw, "pod-name") {
		return r, false
	}
	return r, json.Unmarshal([]byte(ev.Raw), &r) == nil
}

func (r *k8sRecord) created() (k8sCreated, bool) {
	o := r.ObjectRef
	if r.Verb != "create" || o.Subresource != "" || !workloadResources[o.Resource] {
		return k8sCreated{}, false
	}
	c := k8sCreated{resource: o.Resource, namespace: o.Namespace, name: o.Name}
	for _, obj := range []*k8sObject{r.ResponseObject, r.RequestObject} {
		if obj == nil {
			continue
		}
		if c.name == "" {
			c.name = obj.Metadata.Name
		}
		sp := obj.Spec
		c.runsAs = firstOf(c.runsAs, sp.ServiceAccountName, sp.Template.Spec.ServiceAccountName, sp.JobTemplate.Spec.Template.Spec.ServiceAccountName)
		for _, ref := range obj.Metadata.OwnerReferences {
			if ref.Kind == "Job" || ref.Kind == "ReplicaSet" || ref.Kind == "StatefulSet" || ref.Kind == "DaemonSet" {
				c.ownerJob = firstOf(c.ownerJob, ref.Name)
			}
		}
		if c.name == "" && obj.Metadata.GenerateName != "" {
			c.name = obj.Metadata.GenerateName
		}
	}
	if c.runsAs == "" && o.Resource != "pods" {
		c.runsAs = "default"
	}
	return c, c.name != ""
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// workload records what an agent created through a service's API with a
// credential it held — a Kubernetes pod, job or deployment; an IAM access
// key — as a workload of its own: the creator holds it, the account it
// runs as is a victim. The created object's own later calls are its uses;
// its deletion by the orchestrator is its end.
func (s *capScan) workload(ev *evidence.Event) {
	if ev.Source != evidence.SourceAudit {
		return
	}
	if ev.Format == "cloudtrail" {
		s.mintedKey(ev)
		return
	}
	r, ok := parseK8s(ev)
	if !ok {
		return
	}
	if pod := firstOf(r.User.Extra["authentication.kubernetes.io/pod-name"]...); pod != "" {
		// a call made from inside a created pod: its creators' use
		for _, c := range s.workloads[podNamespace(ev, r.ObjectRef.Namespace)+"/"+pod] {
			s.touch(c)
			c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, Format: ev.Format,
				From: ev.SrcIP, Refused: ev.Decision == evidence.DecisionDeny})
		}
	}
	if ev.Decision != evidence.DecisionAllow {
		return
	}
	if r.Verb == "delete" && r.ObjectRef.Subresource == "" {
		key := r.ObjectRef.Namespace + "/" + r.ObjectRef.Name
		for _, c := range s.workloads[key] {
			s.touch(c)
			c.AddEnd(capability.End{At: ev.Time, How: strings.TrimSuffix(r.ObjectRef.Resource, "s") + " " + key + " deleted", ID: ev.ID,
				By: issuerName(ev), Source: ev.Source, Authority: capability.Authoritative})
		}
		return
	}
	cr, ok := r.created()
	if !ok {
		return
	}
	key := cr.namespace + "/" + cr.name
	if parent := s.jobPod(cr); parent != nil {
		// a pod its controller made for a workload already held: the
		// same workload, reached through that pod's name
		s.workloads[key] = append(s.workloads[key], parent...)
		return
	}
	for _, agent := range s.holders(ev) {
		c := s.entry(agent, capability.Workload, key, capability.Acquired)
		if c.How == "" {
			c.Provenance, c.CredKind = capability.ByCreate, "k8s-"+strings.TrimSuffix(cr.resource, "s")
			c.How = "created " + strings.TrimSuffix(cr.resource, "s") + " " + key + " with " + strings.Join(ev.Credential, ", ")
			if cr.runsAs != "" {
				c.Owner = "system:serviceaccount:" + cr.namespace + ":" + cr.runsAs
				c.How += ", running as " + c.Owner
			}
			c.Acquired = []string{ev.ID}
			c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, Format: ev.Format, From: ev.SrcIP})
			s.workloads[key] = append(s.workloads[key], c)
		}
	}
}

// podNamespace is the namespace a call from a pod came from: the pod's
// own, which its service account names.
func podNamespace(ev *evidence.Event, fallback string) string {
	for _, c := range ev.Credential {
		if rest, ok := strings.CutPrefix(c, "system:serviceaccount:"); ok {
			if ns, _, ok := strings.Cut(rest, ":"); ok {
				return ns
			}
		}
	}
	return fallback
}

// jobPod is the workload a controller's pod belongs to: its owner job,
// or the job its name extends.
func (s *capScan) jobPod(cr k8sCreated) []*capability.Capability {
	if cr.resource != "pods" {
		return nil
	}
	if cr.ownerJob != "" {
		return s.workloads[cr.namespace+"/"+cr.ownerJob]
	}
	for key, cs := range s.workloads {
		ns, name, _ := strings.Cut(key, "/")
		if ns == cr.namespace && strings.HasPrefix(cr.name, name+"-") {
			return cs
		}
	}
	return nil
}

// holders are the agents that held a credential an API call was made
// with: those shown to have acquired it, else its owner.
func (s *capScan) holders(ev *evidence.Event) []string {
	var out []string
	for _, cred := range ev.Credential {
		if b := s.borrow[cred]; len(b) > 0 {
			out = append(out, b...)
			continue
		}
		if owner := s.e.credOwner(cred, ev.Time); owner != nil {
			out = appendNew(out, owner.agent)
		}
	}
	return out
}
