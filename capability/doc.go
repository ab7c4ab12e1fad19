// Package capability holds what an agent could do that the kill switch
// must stop — credentials, places, processes, created workloads, schedules,
// persisted state, external sessions, data destinations, tool calls — with
// the ends their issuers recorded, which sources can observe their uses,
// and the one rule that decides whether each is stopped: the Assessment
// every reader of a case renders and none decides again.
package capability
