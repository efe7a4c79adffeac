package inspect

import (
	"encoding/json"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validation is the answer of POST /api/validate: whether a tool's
// structuredContent matches its output schema
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema).
type Validation struct {
	Valid bool `json:"valid"`
	// Error says why not: the first violation found, or a schema that
	// cannot be used (SchemaError).
	Error       string `json:"error,omitempty"`
	SchemaError bool   `json:"schemaError,omitempty"`
}

// apiValidate is POST /api/validate {"schema","value"}: the value checked
// against the JSON Schema (2020-12, the default dialect of MCP schemas),
// here rather than in the page so that the page needs no validator of its
// own. The schema's $refs must be local: nothing is fetched.
func (in *Inspector) apiValidate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Schema json.RawMessage `json:"schema"`
		Value  json.RawMessage `json:"value"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if len(body.Schema) == 0 || len(body.Value) == 0 {
		httpError(w, http.StatusBadRequest, "want a schema and a value")
		return
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(body.Schema, &s); err != nil {
		writeJSON(w, http.StatusOK, Validation{Error: "the output schema: " + err.Error(), SchemaError: true})
		return
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		writeJSON(w, http.StatusOK, Validation{Error: "the output schema: " + err.Error(), SchemaError: true})
		return
	}
	var v any
	if err := json.Unmarshal(body.Value, &v); err != nil {
		httpError(w, http.StatusBadRequest, "the value is not JSON: "+err.Error())
		return
	}
	if err := rs.Validate(v); err != nil {
		writeJSON(w, http.StatusOK, Validation{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, Validation{Valid: true})
}
