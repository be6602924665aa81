package fieldcheck

// Limits of the formats that config's file schema states as JSON Schema
// and the formats' rules check (internal/publish/agentstxt, awp): one
// definition for both.
const (
	// DraftCarMaxName, DraftCarMaxDescription and DraftCarMaxID are the
	// limits of the draft-car agents.json schema (site.name,
	// site.description and capability description, capability id).
	DraftCarMaxName        = 200
	DraftCarMaxDescription = 500
	DraftCarMaxID          = 100
)

// AWPMethods are the methods of AWP 9 and of the v0.1.0 agents.json
// schema.
var AWPMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
