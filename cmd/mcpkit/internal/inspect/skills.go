package inspect

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// SkillFile is the answer of POST /api/skill-read: a skill's file read
// with resources/read and checked against the digest and size skills/get
// gives for it (the Skills extension's "Skill Entries": a host verifies
// what it loads).
type SkillFile struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	// Text is the file's content when it is UTF-8; Binary is set when it
	// is not (the page shows no content then).
	Text   string `json:"text,omitempty"`
	Binary bool   `json:"binary,omitempty"`
	// Digest and Size are those of the bytes read; Want and WantSize
	// those skills/get lists.
	Digest   string `json:"digest"`
	Size     int64  `json:"size"`
	Want     string `json:"want"`
	WantSize int64  `json:"wantSize"`
	// Verified is true when both match.
	Verified bool `json:"verified"`
}

// apiSkillRead is POST /api/skill-read {"skill","uri"}: skills/get of
// the skill (its SKILL.md URI) for the file's digest and size, then
// resources/read of the file, and the digest of what was read.
func (in *Inspector) apiSkillRead(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Skill string `json:"skill"`
		URI   string `json:"uri"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	c := in.current(w)
	if c == nil {
		return
	}
	upstream := func(what string, err error) {
		resp := map[string]any{"error": "mcpkit inspect: " + what + ": " + err.Error()}
		if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); ok {
			resp["error"] = &jsonrpc.Error{Code: rpcErr.Code, Message: what + ": " + rpcErr.Message, Data: rpcErr.Data}
		}
		writeJSON(w, http.StatusBadGateway, resp)
	}
	var got skills.GetResult
	if err := c.cs.Call(r.Context(), "skills/get", &skills.GetParams{URI: body.Skill}, &got); err != nil {
		upstream("skills/get", err)
		return
	}
	var entry *skills.Resource
	for i := range got.Skill.Resources {
		if got.Skill.Resources[i].URI == body.URI {
			entry = &got.Skill.Resources[i]
		}
	}
	if entry == nil {
		httpError(w, http.StatusNotFound, "skill "+quote(body.Skill)+" lists no file "+quote(body.URI))
		return
	}
	res, err := c.cs.ReadResource(r.Context(), &mcp.ReadResourceParams{URI: body.URI})
	if err != nil {
		upstream("resources/read", err)
		return
	}
	var rc *mcp.ResourceContents
	for _, x := range res.Contents {
		if x != nil && x.URI == body.URI {
			rc = x
			break
		}
	}
	if rc == nil {
		httpError(w, http.StatusBadGateway, "resources/read of "+quote(body.URI)+" returned no content for the URI")
		return
	}
	raw := []byte(rc.Text)
	if rc.Blob != "" {
		if raw, err = base64.StdEncoding.DecodeString(rc.Blob); err != nil {
			httpError(w, http.StatusBadGateway, "resources/read of "+quote(body.URI)+": the blob is not base64: "+err.Error())
			return
		}
	}
	sum := sha256.Sum256(raw)
	f := SkillFile{URI: body.URI, MIMEType: rc.MIMEType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(raw)),
		Want: entry.Digest, WantSize: entry.Size}
	f.Verified = f.Digest == f.Want && f.Size == f.WantSize
	if utf8.Valid(raw) {
		f.Text = string(raw)
	} else {
		f.Binary = true
	}
	writeJSON(w, http.StatusOK, f)
}
