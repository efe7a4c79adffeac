package mcp

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// benchListIn is the arguments of the tools of BenchmarkToolsList500: a
// schema of the size real tools have (nested object, enum, array,
// descriptions).
type benchListIn struct {
	Filters struct {
		Author string `json:"author,omitempty" jsonschema:"only results by this author"`
		Since  string `json:"since,omitempty" jsonschema:"only results after this date (RFC 3339)"`
	} `json:"filters" jsonschema:"what the results must match"`
	Tags  []string `json:"tags,omitempty" jsonschema:"only results with all of these tags"`
	Query string   `json:"query" jsonschema:"the text to search for, in the user's words"`
	Limit int      `json:"limit,omitempty" jsonschema:"how many results at most; 10 if zero"`
	Sort  string   `json:"sort,omitempty" jsonschema:"the order of the results: relevance or date"`
}

type benchListOut struct {
	Results []string `json:"results" jsonschema:"the matching documents"`
	Total   int      `json:"total" jsonschema:"how many matched in all"`
}

// newListBenchServer returns a server with n typed tools listed on one
// page.
func newListBenchServer(b *testing.B, n int) *Server {
	s := NewServer(Implementation{Name: "bench", Version: "1"}, &ServerOptions{PageSize: n})
	for i := range n {
		t := &Tool{Name: "search_" + strconv.Itoa(i), Description: "Searches the document store number " + strconv.Itoa(i) + " for documents that match a query."}
		if err := AddTool(s, t, func(context.Context, *Request, benchListIn) (benchListOut, error) {
			return benchListOut{}, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkToolsList500 measures tools/list of 500 tools with real
// schemas on one page, as a transport sees it (decode the frame,
// dispatch, encode the reply), in both eras, against writing the same
// bytes alone ("write"): issue 19 wants the list served from a cached
// encoding at no more than 1.2× the cost of writing it.
func BenchmarkToolsList500(b *testing.B) {
	s := newListBenchServer(b, 500)
	ctx := context.Background()
	run := func(b *testing.B, frame []byte, serve func(*jsonrpc.Request) *jsonrpc.Response) {
		b.ReportAllocs()
		n, start := 0, cpuclock.Now()
		size := 0
		for b.Loop() {
			n++
			msg, _, err := jsonrpc.Decode(frame)
			if err != nil {
				b.Fatal(err)
			}
			resp := serve(msg.(*jsonrpc.Request))
			if resp.Error != nil {
				b.Fatal(resp.Error)
			}
			out, err := jsonrpc.Encode(resp)
			if err != nil {
				b.Fatal(err)
			}
			size = len(out)
		}
		reportCPU(b, start, n)
		b.SetBytes(int64(size))
	}
	session := func(b *testing.B) func(*jsonrpc.Request) *jsonrpc.Response {
		ss := s.newSession(SessionOptions{Preinitialized: true})
		b.Cleanup(func() { ss.Close() })
		return func(req *jsonrpc.Request) *jsonrpc.Response {
			resp, err := ss.handleRequest(ctx, req, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			return resp
		}
	}
	stateless := func(req *jsonrpc.Request) *jsonrpc.Response {
		resp, refused := s.serveStateless(ctx, req, nil, nil)
		if refused {
			b.Fatal(resp.Error)
		}
		return resp
	}
	sessionFrame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	statelessFrame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + benchModernMeta + `}}`)
	b.Run("session", func(b *testing.B) { run(b, sessionFrame, session(b)) })
	b.Run("stateless", func(b *testing.B) { run(b, statelessFrame, stateless) })
	// write is the floor: the same response, encoded once beforehand,
	// written again as a transport writes it.
	for _, era := range []struct {
		name  string
		frame []byte
		serve func(*testing.B) func(*jsonrpc.Request) *jsonrpc.Response
	}{
		{"session", sessionFrame, session},
		{"stateless", statelessFrame, func(*testing.B) func(*jsonrpc.Request) *jsonrpc.Response { return stateless }},
	} {
		b.Run("write-"+era.name, func(b *testing.B) {
			msg, _, _ := jsonrpc.Decode(era.frame)
			resp := era.serve(b)(msg.(*jsonrpc.Request))
			run(b, era.frame, func(*jsonrpc.Request) *jsonrpc.Response { return resp })
		})
	}
}
