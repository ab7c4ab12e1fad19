package detect

import "github.com/cordon-ir/cordon/attribution"

// Identity is a copy of the identity map the pass attributes by (the
// session records it has read, before its first event and since): what
// an enforcement point asking "whose request is this?" is answered from,
// as the pass would attribute a proxy event. The copy is the caller's;
// the pass goes on without it.
func (p *Pass) Identity() *attribution.Identity { return p.env.id.Clone() }
