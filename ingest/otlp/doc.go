// Package otlp parses OpenTelemetry exports in OTLP/JSON: GenAI agent,
// model and tool spans become session, model-call, tool-call and policy
// events tied to the agent their resource names; log records are kept too.
package otlp
