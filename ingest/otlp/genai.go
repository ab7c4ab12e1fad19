package otlp

import (
	"encoding/json"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// spanOp is a span's GenAI operation: gen_ai.operation.name, else an MCP
// tools/call, else the operation its name starts with.
func spanOp(sp *otlpSpan) string {
	if op := sp.attrs.str("gen_ai.operation.name"); op != "" {
		return op
	}
	if sp.attrs.str("mcp.method.name") == "tools/call" {
		return "execute_tool"
	}
	word, _, _ := strings.Cut(sp.Name, " ")
	switch word {
	case "invoke_agent", "create_agent", "execute_tool", "chat", "generate_content", "text_completion", "embeddings", "apply_guardrail":
		return word
	}
	if strings.HasPrefix(strings.ToLower(sp.Name), "guardrail") {
		return "apply_guardrail"
	}
	return ""
}

// spanEvents maps every span of one export. A span without the agent or
// conversation attributes takes them from its nearest ancestor in the same
// export (a tool or model span under invoke_agent).
func spanEvents(spans []*otlpSpan, num *parse.Numbers) []evidence.Event {
	byID := make(map[string]*otlpSpan, len(spans))
	for _, sp := range spans {
		byID[sp.TraceID+"/"+sp.SpanID] = sp
	}
	inherit := func(sp *otlpSpan, keys ...string) string {
		for hop, cur := 0, sp; cur != nil && hop < 64; hop++ {
			if v := cur.attrs.str(keys...); v != "" {
				return v
			}
			if cur.ParentSpanID == "" {
				break
			}
			cur = byID[cur.TraceID+"/"+cur.ParentSpanID]
		}
		return ""
	}
	var evs []evidence.Event
	for _, sp := range spans {
		base := evidence.Event{Time: sp.start, TraceID: sp.TraceID, SpanID: sp.SpanID, Raw: string(sp.raw),
			Agent: inherit(sp, "gen_ai.agent.id", "gen_ai.agent.name"), Session: inherit(sp, "gen_ai.conversation.id")}
		base.Session = parse.FirstOf(base.Session, sp.attrs.str("mcp.session.id"))
		if base.Agent != "" {
			base.AttributedVia = "record"
		}
		if sp.ParentSpanID != "" {
			base.Tags = []string{"parent_span:" + sp.ParentSpanID}
		}
		evs = append(evs, spanToEvents(sp, base, num)...)
	}
	return evs
}

// spanToEvents is the event a span stands for, plus a policy_decision for
// an action-gate disposition and for each guardrail result it carries.
func spanToEvents(sp *otlpSpan, base evidence.Event, num *parse.Numbers) []evidence.Event {
	a, op := sp.attrs, spanOp(sp)
	ev := base
	ev.Tags = append([]string(nil), base.Tags...)
	ev.Model = a.str("gen_ai.response.model", "gen_ai.request.model")
	errText := ""
	if otlpEnum(sp.Status.Code, "STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR") == 2 || a.str("error.type") != "" {
		ev.Status, ev.Decision = parse.FirstOf(a.str("error.type"), "error"), evidence.DecisionError
		errText = parse.Message("error", a.str("error.type"), sp.Status.Message)
	}
	provider := parse.Labelled("provider", a.str("gen_ai.provider.name", "gen_ai.system"))
	tool := toolName(sp)
	switch {
	case op == "invoke_agent" || op == "create_agent":
		ev.Kind = evidence.KindSessionStart
		ev.Tags = append(ev.Tags, op)
		ev.Message = parse.Message(op, a.str("gen_ai.agent.name"), parse.Labelled("id", a.str("gen_ai.agent.id")), parse.Labelled("model", ev.Model),
			parse.Labelled("conversation", a.str("gen_ai.conversation.id")), provider, otlpTokens(a), errText)
	case op == "execute_tool":
		ev.Kind, ev.Tool, ev.CallID = evidence.KindToolCall, tool, a.str("gen_ai.tool.call.id")
		args := json.RawMessage(a.str("gen_ai.tool.call.arguments"))
		parse.ToolArgs(&ev, args)
		ev.Message = parse.Message(tool, parse.ArgsText(args), parse.Labelled("type", a.str("gen_ai.tool.type")), errText)
	case otlpModelOps[op]:
		ev.Kind = parse.KindModelCall
		ev.DstHost, ev.DstPort = a.str("server.address"), num.Port("server.port", parse.Flex(a.str("server.port")))
		ev.Message = parse.Message(op, ev.Model, provider, otlpTokens(a), parse.Labelled("finish", a.str("gen_ai.response.finish_reasons")),
			parse.Labelled("server", parse.HostPort(ev.DstHost, "", ev.DstPort)), errText)
	case op == "apply_guardrail":
		guardrail(&ev, a, errText)
	default:
		ev.Kind = evidence.KindOther
		ev.URL, ev.Method = a.str("url.full", "http.url"), a.str("http.request.method", "http.method")
		if code := a.str("http.response.status_code", "http.status_code"); code != "" {
			ev.Status = code
		}
		ev.DstHost, ev.DstPort = a.str("server.address", "net.peer.name"), num.Port("server.port", parse.Flex(a.str("server.port", "net.peer.port")))
		method := ev.Method
		if method == sp.Name {
			method = ""
		}
		ev.Message = parse.Message(sp.Name, parse.Labelled("op", op), method, ev.URL, parse.Labelled("status", ev.Status), errText)
	}
	sp.res.apply(&ev)
	evs := []evidence.Event{ev}
	if d := a.str("gen_ai.agent.tool.disposition"); d != "" && ev.Kind != evidence.KindPolicyDecision {
		pd := base
		pd.Tags = append([]string(nil), base.Tags...)
		pd.Kind, pd.Tool, pd.CallID = evidence.KindPolicyDecision, tool, a.str("gen_ai.tool.call.id")
		guardrail(&pd, a, "")
		sp.res.apply(&pd)
		evs = append(evs, pd)
	}
	for _, e := range sp.Events {
		if e.Name != "gen_ai.guardrail.result" {
			continue
		}
		pd := base
		pd.Tags = append([]string(nil), base.Tags...)
		if t := unixNano(e.TimeUnixNano); !t.IsZero() {
			pd.Time = t
		}
		ea := attrsOf(e.Attributes)
		for k, v := range a {
			if _, ok := ea[k]; !ok && strings.HasPrefix(k, "gen_ai.guardrail.") {
				ea[k] = v
			}
		}
		guardrail(&pd, ea, "")
		sp.res.apply(&pd)
		evs = append(evs, pd)
	}
	return evs
}

var otlpModelOps = map[string]bool{"chat": true, "generate_content": true, "text_completion": true, "embeddings": true}

// toolName is gen_ai.tool.name, else what follows "execute_tool " or
// "tools/call " in the span name.
func toolName(sp *otlpSpan) string {
	if t := sp.attrs.str("gen_ai.tool.name"); t != "" {
		return t
	}
	for _, p := range []string{"execute_tool ", "tools/call "} {
		if rest, ok := strings.CutPrefix(sp.Name, p); ok {
			return rest
		}
	}
	return ""
}

func otlpTokens(a otlpAttrs) string {
	in, out := a.str("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"), a.str("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
	if in == "" && out == "" {
		return ""
	}
	return "tokens in " + parse.FirstOf(in, "0") + " out " + parse.FirstOf(out, "0")
}

// guardrail fills a policy_decision from guardrail and action-gate
// attributes. The conventions forbid instrumentations to infer a verdict;
// cordon reads the few provider values that are one: an action-gate
// disposition (simulate withholds the real effect: deny), Bedrock's
// GUARDRAIL_INTERVENED / NONE and the OpenAI Agents tripwire. Any other
// result is kept as written in status, with no decision.
func guardrail(ev *evidence.Event, a otlpAttrs, errText string) {
	ev.Kind = evidence.KindPolicyDecision
	ev.Policy = a.str("gen_ai.guardrail.policy.id", "gen_ai.guardrail.component.name")
	if v := a.str("gen_ai.guardrail.policy.version"); v != "" && ev.Policy != "" {
		ev.Policy += "@" + v
	}
	rt, rv := a.str("gen_ai.guardrail.result.type"), a.str("gen_ai.guardrail.result.value")
	disp := strings.ToLower(a.str("gen_ai.agent.tool.disposition"))
	if rt != "" || rv != "" {
		ev.Status = strings.TrimPrefix(rt+"="+rv, "=")
	}
	switch {
	case disp == "allow":
		ev.Decision, ev.Status = evidence.DecisionAllow, disp
	case disp == "deny" || disp == "simulate":
		ev.Decision, ev.Status = evidence.DecisionDeny, disp
		if disp == "simulate" {
			ev.Tags = append(ev.Tags, "simulated")
		}
	case rv == "GUARDRAIL_INTERVENED" || rt == "tripwire_triggered" && rv == "true":
		ev.Decision = evidence.DecisionDeny
	case rt == "action" && rv == "NONE" || rt == "tripwire_triggered" && rv == "false":
		ev.Decision = evidence.DecisionAllow
	case errText != "":
		ev.Decision = evidence.DecisionError
	}
	if tier := a.str("gen_ai.agent.tool.tier"); tier != "" {
		ev.Tags = append(ev.Tags, "tier:"+tier)
	}
	if a.str("gen_ai.agent.kill_switch_engaged") == "true" {
		ev.Tags = append(ev.Tags, "kill_switch")
	}
	risk := ""
	if c := a.str("gen_ai.guardrail.risk.category"); c != "" {
		risk = parse.Message("risk", c, a.str("gen_ai.guardrail.risk.score"))
	}
	result := ""
	if rt != "" || rv != "" {
		result = "result " + strings.TrimPrefix(rt+"="+rv, "=")
	}
	ev.Message = parse.Message(parse.FirstOf(ev.Decision, "decision"), ev.Tool, parse.Labelled("by", ev.Policy), a.str("gen_ai.guardrail.component.name"),
		parse.Labelled("rule", a.str("gen_ai.guardrail.policy.rule.id")), parse.Labelled("on", a.str("gen_ai.guardrail.source")),
		parse.Labelled("disposition", disp), result, a.str("gen_ai.guardrail.result.reason"), risk,
		parse.Labelled("receipt", parse.ShortDigest(a.str("gen_ai.agent.action_ledger.receipt_hash"))), errText)
}
