package targets

import (
	"bytes"
	"io"
	"net/http"
)

// The floor target answers the load generator's requests with the least
// work that still passes its checks: no JSON decoding, the echoed text cut
// out of the body by byte search, a canned initialize result. What it
// costs per request is net/http's and the kernel's share, which every HTTP
// target pays; a target's distance from it is its own work. It is opt-in
// (-targets mcpkit,floor): issue 6's table compares with plain.
func init() {
	register(&Target{
		Name:        "floor",
		OptIn:       true,
		HasJSONMode: true,
		HTTP: func(HTTPMode) (http.Handler, error) {
			return floorHandler{}, nil
		},
	})
}

type floorHandler struct{}

var floorInitResult = []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench-floor","version":"1"}}}`)

var (
	floorIDKey   = []byte(`"id":`)
	floorTextKey = []byte(`"text":"`)
)

func (floorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id := bytes.Index(body, floorIDKey)
	if id < 0 { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header()["Content-Type"] = []string{"application/json"}
	text := bytes.Index(body, floorTextKey)
	if text < 0 { // initialize
		w.Write(floorInitResult)
		return
	}
	idVal := body[id+len(floorIDKey):]
	idVal = idVal[:bytes.IndexByte(idVal, ',')]
	textVal := body[text+len(floorTextKey):]
	textVal = textVal[:bytes.IndexByte(textVal, '"')]
	out := make([]byte, 0, 96+len(textVal))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, idVal...)
	out = append(out, `,"result":{"content":[{"type":"text","text":"`...)
	out = append(out, textVal...)
	out = append(out, `"}]}}`...)
	w.Write(out)
}
