package main

import (
	"os"

	"github.com/cordon-ir/cordon/incident"
)

// storeEnv=memory runs the console on the in-memory store instead of the
// Bleve index (docs/architecture.md): the evidence given to cordon open is
// ingested into memory and gone at exit. For trying the Store contract on
// a second backend, not for a case.
const storeEnv = "CORDON_STORE"

func storeOption() incident.Option { return incident.InMemory(os.Getenv(storeEnv) == "memory") }
