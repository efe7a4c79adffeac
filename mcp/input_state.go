package mcp

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// The requestState of an input_required result is opaque to the client and
// attacker-controlled when it comes back, so the server signs it: it carries
// the answers of earlier rounds, bound to the method, the tool, prompt or
// resource it was issued for, a digest of the request's arguments, and an
// expiry
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#request-state).
// Its form is base64url(payload) "." base64url(HMAC-SHA256(key, payload)).

type statePayload struct {
	Method string `json:"m"`
	Name   string `json:"n"`
	// Args is the digest of the request's arguments (requestBinding), so
	// that answers given for one call (say, a confirmation) do not serve
	// the same tool called with other arguments.
	Args    string                     `json:"d,omitempty"`
	Expires int64                      `json:"x"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

func randomKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand)
	return k
}

// requestBinding is what a requestState is bound to besides the method:
// the tool or prompt name, or the resource URI, and a digest of the
// arguments of tools/call and prompts/get (empty for resources/read). The
// digest is of the arguments re-encoded (keys sorted, no spaces), so that
// a retry that spells the same arguments differently still matches;
// absent, null and {} arguments are the same.
func requestBinding(method string, params json.RawMessage) (name, args string) {
	member := "name"
	if method == "resources/read" {
		member = "uri"
	}
	var raw []byte
	if len(params) > 0 && params[0] == '{' {
		_, _ = jsonscan.ScanObject(params, 0, func(key, value []byte) {
			switch {
			case jsonscan.KeyEquals(key, member):
				name, _ = jsonscan.StringValue(value)
			case jsonscan.KeyEquals(key, "arguments"):
				raw = value
			}
		})
	}
	if method == "resources/read" {
		return name, ""
	}
	sum := sha256.Sum256(canonicalJSON(raw))
	return name, base64.RawURLEncoding.EncodeToString(sum[:16])
}

// canonicalJSON re-encodes raw with sorted keys and numbers as written;
// absent and null are {}.
func canonicalJSON(raw []byte) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return emptyObject
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return emptyObject
	}
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

func (s *Server) signState(req *jsonrpc.Request, answers map[string]json.RawMessage) (string, error) {
	name, args := requestBinding(req.Method, req.Params)
	payload, err := jsonenc.Marshal(statePayload{
		Method:  req.Method,
		Name:    name,
		Args:    args,
		Expires: time.Now().Add(s.opts.RequestStateTTL).Unix(),
		Answers: answers,
	})
	if err != nil {
		return "", err
	}
	key, err := s.stateKey.get()
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(mac.Sum(nil)), nil
}

var errBadState = errors.New("requestState is not one this server issued, or was altered")

func (s *Server) verifyState(req *jsonrpc.Request, state string) (map[string]json.RawMessage, error) {
	enc := base64.RawURLEncoding
	p64, m64, ok := strings.Cut(state, ".")
	if !ok {
		return nil, errBadState
	}
	payload, err1 := enc.DecodeString(p64)
	sum, err2 := enc.DecodeString(m64)
	if err1 != nil || err2 != nil {
		return nil, errBadState
	}
	key, err := s.stateKey.get()
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	if !hmac.Equal(sum, mac.Sum(nil)) {
		return nil, errBadState
	}
	var p statePayload
	if err := exactjson.Unmarshal(payload, &p); err != nil {
		return nil, errBadState
	}
	name, args := requestBinding(req.Method, req.Params)
	if p.Method != req.Method || p.Name != name || p.Args != args {
		return nil, errors.New("requestState was issued for another request")
	}
	if time.Now().Unix() > p.Expires {
		return nil, errors.New("requestState has expired")
	}
	return p.Answers, nil
}

// readInputValues reads a retry's inputResponses and requestState (the
// raw params members, nil when absent; requestMeta.parse finds them) into
// the answers known for the attempt: the answers of earlier rounds from the verified state, and
// this round's for the keys the state does not answer yet.
func (s *Server) readInputValues(req *jsonrpc.Request, responses, state []byte) (answers map[string]json.RawMessage, _ *jsonrpc.Error) {
	if state != nil {
		str, ok := jsonscan.StringValue(state)
		if !ok {
			return nil, errInvalidParams("requestState must be a string")
		}
		verified, err := s.verifyState(req, str)
		if errors.Is(err, errNoStateKey) {
			s.logger.Error("mcp: verifying a requestState", "err", err)
			return nil, errInternal()
		}
		if err != nil {
			return nil, errInvalidParams(err.Error())
		}
		answers = verified
	}
	if responses != nil {
		if responses[0] != '{' {
			return nil, errInvalidParams("inputResponses must be an object of input responses")
		}
		var round map[string]json.RawMessage
		if err := exactjson.Unmarshal(responses, &round); err != nil {
			return nil, errInvalidParams("inputResponses: " + err.Error())
		}
		if answers == nil {
			answers = round
		} else {
			// The answers the state carries stand: a retry adds answers,
			// it does not replace those of earlier rounds.
			for k, v := range round {
				if _, earlier := answers[k]; !earlier {
					answers[k] = v
				}
			}
		}
	}
	return answers, nil
}
