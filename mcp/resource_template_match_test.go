package mcp

import (
	"context"
	"maps"
	"runtime"
	"strings"
	"testing"

	"github.com/yosida95/uritemplate/v3"
)

// TestURIMatcherAgreesWithUritemplate checks the linear matcher against
// yosida95/uritemplate's Match, which it replaces, on the templates MCP
// servers use.
func TestURIMatcherAgreesWithUritemplate(t *testing.T) {
	cases := map[string][]string{
		"test://template/{id}/data": {"test://template/42/data", "test://template/a%20b/data", "test://template//data",
			"test://template/a/b/data", "test://template/42/dat", "other://x", "test://template/a,b/data"},
		"file:///{path}":              {"file:///a", "file:///a/b", "file:///", "file:///%E2%82%AC"},
		"file:///{+path}":             {"file:///a/b/c.txt", "file:///a,b", "file:///%41", "file:///"},
		"x://h{/seg*}":                {"x://h/a/b/c", "x://h", "x://h/", "x://h/a%2Fb"},
		"x://h{/seg}":                 {"x://h/a", "x://h/a/b"},
		"x://h/{a}.{b}":               {"x://h/x.y", "x://h/x"},
		"x://h{.ext}":                 {"x://h.json", "x://h"},
		"x://h/s{?q,lang}":            {"x://h/s?q=go&lang=en", "x://h/s?q=go", "x://h/s", "x://h/s?lang=en", "x://h/s?zz=1", "x://h/s?q=a,b"},
		"x://h/s{?q*}":                {"x://h/s?q=1&q=2", "x://h/s?q=1"},
		"x://h/p{;id}":                {"x://h/p;id=7", "x://h/p"},
		"x://h/{owner}/{repo}{#frag}": {"x://h/o/r#top", "x://h/o/r", "x://h/o/r#a/b"},
		"x://h/{x,y}":                 {"x://h/1,2"},
	}
	for tmpl, uris := range cases {
		ref := uritemplate.MustNew(tmpl)
		m, err := newURIMatcher(tmpl)
		if err != nil {
			t.Fatalf("newURIMatcher(%q): %v", tmpl, err)
		}
		for _, uri := range uris {
			var want map[string]string
			if vals := ref.Match(uri); vals != nil {
				want = map[string]string{}
				for name, v := range vals {
					want[name] = strings.Join(v.V, ",")
				}
			}
			got, ok := m.match(uri)
			if ok != (want != nil) || !maps.Equal(got, want) {
				t.Errorf("%q against %q: got %v (%v), uritemplate says %v", uri, tmpl, got, ok, want)
			}
		}
	}
}

// TestURIMatcherDiffersFromUritemplate pins where the linear matcher
// follows RFC 6570 and uritemplate did not: a variable the URI leaves out
// is absent (uritemplate set y to ""), and ";id" is the expansion of an
// empty id (RFC 6570, section 3.2.7; uritemplate matched nothing).
func TestURIMatcherDiffersFromUritemplate(t *testing.T) {
	for _, c := range []struct {
		tmpl, uri string
		want      map[string]string
	}{
		{"x://h/{x,y}", "x://h/1", map[string]string{"x": "1"}},
		{"x://h/p{;id}", "x://h/p;id", map[string]string{"id": ""}},
	} {
		m, err := newURIMatcher(c.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := m.match(c.uri); !ok || !maps.Equal(got, c.want) {
			t.Errorf("%q against %q: got %v (%v), want %v", c.uri, c.tmpl, got, ok, c.want)
		}
	}
}

// allocatedBytes returns the bytes f allocates, on average over runs.
func allocatedBytes(runs int, f func()) uint64 {
	f() // warm up pools and lazily compiled state
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// TestURIMatchWorkIsLinear matches 4 KiB and 64 KiB URIs against several
// templates and counts the bytes the matching allocates: the work grows
// no faster than the URI, with a small constant. (The Pike VM of
// yosida95/uritemplate allocated 20 bytes per byte on a miss, 1.7 KB per
// byte on a match, and quadratically for {/seg*}.)
func TestURIMatchWorkIsLinear(t *testing.T) {
	templates := []string{"test://template/{id}/data", "file:///{+path}", "x://h{/seg*}", "x://h/s{?q,lang}", "file:///{path}"}
	s := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{MaxResourceURIBytes: 1 << 20})
	for _, tmpl := range templates {
		if err := s.AddResourceTemplate(&ResourceTemplate{URITemplate: tmpl, Name: tmpl}, func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) {
			return &ReadResourceResult{}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	uris := func(n int) []string {
		return []string{
			"test://template/" + strings.Repeat("a", n) + "/data", // matches the first
			"file:///" + strings.Repeat("a/", n/2),                // matches {+path}
			"x://h" + strings.Repeat("/a", n/2),                   // matches {/seg*}
			"x://h/s?q=" + strings.Repeat("b", n),                 // matches {?q,lang}
			"nomatch://" + strings.Repeat("c", n),                 // matches none
		}
	}
	// 8 bytes a byte leaves room for the values found and for other
	// goroutines' allocations; quadratic work would pass it by far. (Below
	// some size the regexp package backtracks, with a bitmap of a few bits
	// per byte and instruction: still linear, but not this small.)
	for _, n := range []int{64 << 10} {
		for i, uri := range uris(n) {
			per := float64(allocatedBytes(3, func() { s.findResource(uri) })) / float64(len(uri))
			if per > 8 {
				t.Errorf("URI %d (%d bytes): %.1f bytes allocated per URI byte, want at most 8", i, len(uri), per)
			}
		}
	}
}

// BenchmarkFindResourceLongURI is the figure of the commit that made
// template matching linear: a 64 KiB URI against five templates.
func BenchmarkFindResourceLongURI(b *testing.B) {
	s := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{MaxResourceURIBytes: 1 << 20})
	for _, tmpl := range []string{"a://{x}", "b://{+x}", "c://h{/x*}", "d://s{?q}", "test://template/{id}/data"} {
		_ = s.AddResourceTemplate(&ResourceTemplate{URITemplate: tmpl, Name: tmpl}, func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) {
			return &ReadResourceResult{}, nil
		})
	}
	uri := "test://template/" + strings.Repeat("a", 64<<10) + "/data"
	b.SetBytes(int64(len(uri)))
	for b.Loop() {
		if _, _, _, ok := s.findResource(uri); !ok {
			b.Fatal("no match")
		}
	}
}

// TestResourceURIBound refuses a uri over ServerOptions.MaxResourceURIBytes
// in resources/read, subscribe and unsubscribe with -32602, before any
// template is tried; a uri at the bound is served.
func TestResourceURIBound(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(rsServer(t, &ServerOptions{MaxResourceURIBytes: 64}))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		atLimit := "test://items/" + strings.Repeat("a", 64-len("test://items/"))
		over := atLimit + "b"
		c.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + atLimit + `"}}`)
		if r := c.recv(); !strings.Contains(r, `"result"`) {
			t.Errorf("a uri of exactly the bound was answered %s", r)
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + over + `"}}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params","data":"uri is 65 bytes, over the limit of 64 (ServerOptions.MaxResourceURIBytes)"}}
			-> {"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"` + over + `"}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"uri is 65 bytes, over the limit of 64 (ServerOptions.MaxResourceURIBytes)"}}
			-> {"jsonrpc":"2.0","id":4,"method":"resources/unsubscribe","params":{"uri":"` + over + `"}}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"uri is 65 bytes, over the limit of 64 (ServerOptions.MaxResourceURIBytes)"}}
		`)
		c.finish()
	})
}

// TestResourceURIDefaultBound is the 8 KiB default.
func TestResourceURIDefaultBound(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "1"}, nil)
	uri := "test://" + strings.Repeat("a", 8<<10)
	want := `uri is 8199 bytes, over the limit of 8192 (ServerOptions.MaxResourceURIBytes)`
	if err := s.checkParamURI(uri); err == nil || err.Code != -32602 || string(err.Data) != `"`+want+`"` {
		t.Errorf("checkParamURI of %d bytes = %v, want -32602 %q", len(uri), err, want)
	}
	if err := s.checkParamURI(uri[:8<<10]); err != nil {
		t.Errorf("checkParamURI of 8192 bytes = %v, want nil", err)
	}
}
