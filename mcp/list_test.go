package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"go.uber.org/goleak"
)

// listStateless is the params of a stateless-era list request on a
// session: served on its own, whatever the connection did before.
const listStateless = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"lc-client","version":"1.0"}}`

// listStamp is what the stateless era puts before a list result's members
// with a cache hint of ttl milliseconds and scope.
func listStamp(ttl int, scope string) string {
	return `"resultType":"complete","ttlMs":` + strconv.Itoa(ttl) + `,"cacheScope":"` + scope +
		`","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"}},`
}

// TestListPagesBothEras checks every list method of a feature set, in both
// eras on one session, page by page: the exact results (the stateless
// era's stamped with resultType, the cache hint in force at each call and
// the server's identity), the same pages again from the cache, and new
// pages once the set changes
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination,
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
func TestListPagesBothEras(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var ttl atomic.Int64
	s := lcNewServer(&ServerOptions{PageSize: 2, CacheHint: func(string) CacheHint {
		return CacheHint{TTL: time.Duration(ttl.Load()) * time.Millisecond, Scope: CachePublic}
	}})
	noTool := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
	noPrompt := func(context.Context, *Request, *GetPromptParams) (*GetPromptResult, error) { return nil, nil }
	noRead := func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) { return nil, nil }
	for _, n := range []string{"c", "a", "b"} {
		if err := s.AddTool(&Tool{Name: n}, noTool); err != nil {
			t.Fatal(err)
		}
		if err := s.AddPrompt(&Prompt{Name: n}, noPrompt); err != nil {
			t.Fatal(err)
		}
		if err := s.AddResource(&Resource{URI: "test://" + n, Name: n}, noRead); err != nil {
			t.Fatal(err)
		}
		if err := s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://" + n + "/{x}", Name: n}, noRead); err != nil {
			t.Fatal(err)
		}
	}
	c := lcConnectMemory(t, s)
	c.send(lcInit(0, "2025-11-25", "lc-client"))
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	lists := []struct {
		method, member string
		item           func(string) string
		key            func(string) string
	}{
		{"tools/list", "tools", func(n string) string { return `{"name":"` + n + `","inputSchema":{"type":"object"}}` }, func(n string) string { return n }},
		{"prompts/list", "prompts", func(n string) string { return `{"name":"` + n + `"}` }, func(n string) string { return n }},
		{"resources/list", "resources", func(n string) string { return `{"uri":"test://` + n + `","name":"` + n + `"}` }, func(n string) string { return "test://" + n }},
		{"resources/templates/list", "resourceTemplates", func(n string) string { return `{"uriTemplate":"test://` + n + `/{x}","name":"` + n + `"}` }, func(n string) string { return "test://" + n + "/{x}" }},
	}
	id := 0
	// check asks for the page after cursor in both eras, twice each, and
	// expects names and next (a key, "" on the last page).
	check := func(method, member string, item, key func(string) string, cursor string, names []string, next string) {
		t.Helper()
		params, cursorMember := "", ""
		if cursor != "" {
			cursorMember = `,"cursor":"` + encodeCursor(key(cursor)) + `"`
			params = `,"params":{` + cursorMember[1:] + `}`
		}
		body := `"` + member + `":[`
		for i, n := range names {
			if i > 0 {
				body += ","
			}
			body += item(n)
		}
		body += "]"
		if next != "" {
			body += `,"nextCursor":"` + encodeCursor(key(next)) + `"`
		}
		for range 2 {
			id++
			c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"` + params + `}`)
			c.expect(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{` + body + `}}`)
			id++
			c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + listStateless + cursorMember + `}}`)
			c.expect(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{` + listStamp(int(ttl.Load()), "public") + body + `}}`)
		}
	}
	for _, l := range lists {
		check(l.method, l.member, l.item, l.key, "", []string{"a", "b"}, "b")
		check(l.method, l.member, l.item, l.key, "b", []string{"c"}, "")
		// A new hint is stamped on the cached page.
		ttl.Store(60000)
		check(l.method, l.member, l.item, l.key, "", []string{"a", "b"}, "b")
		ttl.Store(0)
	}

	// A change is seen by the next call, in both eras.
	if err := s.AddTool(&Tool{Name: "aa"}, noTool); err != nil {
		t.Fatal(err)
	}
	c.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
	check("tools/list", "tools", lists[0].item, lists[0].key, "", []string{"a", "aa"}, "aa")
	s.RemoveTools("a", "c")
	c.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
	check("tools/list", "tools", lists[0].item, lists[0].key, "", []string{"aa", "b"}, "")
	s.RemovePrompts("b")
	c.expect(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`)
	check("prompts/list", "prompts", lists[1].item, lists[1].key, "", []string{"a", "c"}, "")
	s.RemoveResources("test://a")
	c.expect(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`)
	check("resources/list", "resources", lists[2].item, lists[2].key, "", []string{"b", "c"}, "")
	s.RemoveResourceTemplates("test://c/{x}")
	c.expect(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`)
	check("resources/templates/list", "resourceTemplates", lists[3].item, lists[3].key, "", []string{"a", "b"}, "")

	// A cursor the server did not issue, in both eras.
	for _, l := range lists {
		c.run(`
			-> {"jsonrpc":"2.0","id":"x","method":"` + l.method + `","params":{"cursor":"bm9wZQ"}}
			<- {"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one ` + l.method + ` issued; list again without a cursor"}}
			-> {"jsonrpc":"2.0","id":"y","method":"` + l.method + `","params":` + listStateless + `,"cursor":"%%%"}}
			<- {"jsonrpc":"2.0","id":"y","error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one ` + l.method + ` issued; list again without a cursor"}}
		`)
	}
	c.finish()
}

// TestListMiddlewareChangesResult checks that a middleware that changes a
// list result, in place or by a new value, has its change sent in both
// eras, and that the change reaches no other response: the cached page is
// served only for a result that still holds exactly it.
func TestListMiddlewareChangesResult(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var mode atomic.Int32
	s := lcNewServer(&ServerOptions{Middleware: []Middleware{func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (any, error) {
			res, err := next(ctx, r)
			if lt, ok := res.(*ListToolsResult); ok {
				switch mode.Load() {
				case 1: // drop the last tool
					lt.Tools = lt.Tools[:len(lt.Tools)-1]
				case 2: // replace a tool
					lt.Tools[0] = &Tool{Name: "z", InputSchema: json.RawMessage(`{"type":"object"}`)}
				case 3: // add _meta
					lt.Meta = Meta{"k": json.RawMessage(`1`)}
				}
			}
			return res, err
		}
	}}})
	noTool := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
	for _, n := range []string{"a", "b"} {
		if err := s.AddTool(&Tool{Name: n}, noTool); err != nil {
			t.Fatal(err)
		}
	}
	c := lcConnectMemory(t, s)
	c.send(lcInit(0, "2025-11-25", "lc-client"))
	c.recv()
	const (
		a = `{"name":"a","inputSchema":{"type":"object"}}`
		b = `{"name":"b","inputSchema":{"type":"object"}}`
		z = `{"name":"z","inputSchema":{"type":"object"}}`
	)
	for _, tc := range []struct {
		mode       int32
		meta, list string
	}{
		{0, "", a + "," + b},
		{1, "", a},
		{0, "", a + "," + b},
		{2, "", z + "," + b},
		{0, "", a + "," + b},
		{3, `"k":1`, a + "," + b},
		{0, "", a + "," + b},
	} {
		mode.Store(tc.mode)
		want := `{"jsonrpc":"2.0","id":1,"result":{`
		if tc.meta != "" {
			want += `"_meta":{` + tc.meta + `},`
		}
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		c.expect(want + `"tools":[` + tc.list + `]}}`)
		stamp := listStamp(0, "private")
		if tc.meta != "" {
			// The server's identity joins the result's own _meta.
			stamp = `"resultType":"complete","ttlMs":0,"cacheScope":"private",`
		}
		want = `{"jsonrpc":"2.0","id":2,"result":{` + stamp
		if tc.meta != "" {
			want += `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"},` + tc.meta + `},`
		}
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":` + listStateless + `}}`)
		c.expect(want + `"tools":[` + tc.list + `]}}`)
	}
	c.finish()
}

// TestListCacheBound checks that the page cache holds each page a client
// reaches from the first page once, whatever cursors clients make up: a
// cursor may name any key, but only pages that start where the first
// page's successors start are kept.
func TestListCacheBound(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := lcNewServer(&ServerOptions{PageSize: 3})
	noTool := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
	var keys []string
	for i := range 10 {
		k := "t" + strconv.Itoa(10+i)
		keys = append(keys, k)
		if err := s.AddTool(&Tool{Name: k}, noTool); err != nil {
			t.Fatal(err)
		}
	}
	list := func(cursor string) *ListToolsResult {
		t.Helper()
		params, _ := json.Marshal(PaginatedParams{Cursor: cursor})
		res, err := s.listTools(context.Background(), &Request{Method: "tools/list", Params: params})
		if err != nil {
			t.Fatalf("tools/list after %q: %v", cursor, err)
		}
		return res.(*ListToolsResult)
	}
	cached := func() int {
		s.tools.cache.mu.Lock()
		defer s.tools.cache.mu.Unlock()
		return len(s.tools.cache.pages)
	}
	for range 2 {
		list("")
		for _, k := range keys {
			list(encodeCursor(k))
			list(encodeCursor(k + "x")) // a key between two
		}
	}
	// Pages start at 0, 3, 6 and 9 (the empty page after the last key
	// starts at 10 and is not kept).
	if n := cached(); n != 4 {
		t.Errorf("%d pages cached, want 4", n)
	}
	// A change drops them at the next call.
	s.RemoveTools("t10")
	if got := list("").Tools[0].Name; got != "t11" {
		t.Errorf("first tool after RemoveTools = %q, want t11", got)
	}
	if n := cached(); n != 1 {
		t.Errorf("%d pages cached after a change and one call, want 1", n)
	}
}

// TestListCacheConcurrent lists in both eras while tools come and go: every
// answer is a whole, sorted list of one version (run with -race).
func TestListCacheConcurrent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := lcNewServer(&ServerOptions{PageSize: 1000})
	noTool := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
	for i := range 20 {
		if err := s.AddTool(&Tool{Name: "t" + strconv.Itoa(100+i)}, noTool); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	errs := make(chan string, 8)
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 200 {
				res, err := s.listTools(context.Background(), &Request{Method: "tools/list"})
				if err != nil {
					errs <- err.Error()
					return
				}
				var raw json.RawMessage
				if g%2 == 1 {
					raw = s.statelessResponse(jsonrpc.Int64ID(1), "tools/list", res).Result
				} else {
					raw = s.makeResponse(jsonrpc.Int64ID(1), res, nil).Result
				}
				var got struct {
					Tools []struct{ Name string } `json:"tools"`
				}
				if err := json.Unmarshal(raw, &got); err != nil {
					errs <- err.Error()
					return
				}
				for i := 1; i < len(got.Tools); i++ {
					if got.Tools[i-1].Name >= got.Tools[i].Name {
						errs <- "unsorted list: " + string(raw)
						return
					}
				}
			}
		}()
	}
	for i := range 200 {
		name := "t" + strconv.Itoa(200+i%10)
		if i%2 == 0 {
			if err := s.AddTool(&Tool{Name: name}, noTool); err != nil {
				t.Fatal(err)
			}
		} else {
			s.RemoveTools(name)
		}
	}
	for range 4 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
