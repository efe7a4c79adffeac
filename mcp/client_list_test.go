package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// names maps an iterator over a list to one over its items' names.
func names[T any](seq iter.Seq2[T, error], name func(T) string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for item, err := range seq {
			n := ""
			if err == nil {
				n = name(item)
			}
			if !yield(n, err) {
				return
			}
		}
	}
}

// listIterators are the five iterators over lists, by method.
var listIterators = []struct {
	method  string
	iterate func(ctx context.Context, cs *mcp.ClientSession, p *mcp.PaginatedParams) iter.Seq2[string, error]
}{
	{"tools/list", func(ctx context.Context, cs *mcp.ClientSession, p *mcp.PaginatedParams) iter.Seq2[string, error] {
		return names(cs.Tools(ctx, p), func(t *mcp.Tool) string { return t.Name })
	}},
	{"prompts/list", func(ctx context.Context, cs *mcp.ClientSession, p *mcp.PaginatedParams) iter.Seq2[string, error] {
		return names(cs.Prompts(ctx, p), func(t *mcp.Prompt) string { return t.Name })
	}},
	{"resources/list", func(ctx context.Context, cs *mcp.ClientSession, p *mcp.PaginatedParams) iter.Seq2[string, error] {
		return names(cs.Resources(ctx, p), func(t *mcp.Resource) string { return t.Name })
	}},
	{"resources/templates/list", func(ctx context.Context, cs *mcp.ClientSession, p *mcp.PaginatedParams) iter.Seq2[string, error] {
		return names(cs.ResourceTemplates(ctx, p), func(t *mcp.ResourceTemplate) string { return t.Name })
	}},
	{"tasks/list", func(ctx context.Context, cs *mcp.ClientSession, p *mcp.PaginatedParams) iter.Seq2[string, error] {
		return names(cs.Tasks(ctx, p), func(t *mcp.Task) string { return t.TaskID })
	}},
}

// listResults make a page of one item called name for each list method.
var listResults = map[string]func(name, next string) any{
	"tools/list":   func(n, c string) any { return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: n}}, NextCursor: c} },
	"prompts/list": func(n, c string) any { return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: n}}, NextCursor: c} },
	"resources/list": func(n, c string) any {
		return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{Name: n}}, NextCursor: c}
	},
	"resources/templates/list": func(n, c string) any {
		return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{{Name: n}}, NextCursor: c}
	},
	"tasks/list": func(n, c string) any { return &mcp.ListTasksResult{Tasks: []*mcp.Task{{TaskID: n}}, NextCursor: c} },
}

// pagingServer answers every list method from next, a function from the
// cursor asked for to the cursor of the page after it; each page holds
// one item named after its cursor ("first" for the first page). asked
// counts the list requests.
func pagingServer(next func(cursor string) string, asked *atomic.Int32) *mcp.Server {
	return mcp.NewServer(serverTestInfo, &mcp.ServerOptions{Middleware: []mcp.Middleware{func(h mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			var p mcp.PaginatedParams
			if r.Params != nil {
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, err
				}
			}
			name := p.Cursor
			if name == "" {
				name = "first"
			}
			n := next(p.Cursor)
			result, ok := listResults[r.Method]
			if !ok {
				return h(ctx, r)
			}
			asked.Add(1)
			return result(name, n), nil
		}
	}}})
}

// collect runs an iterator to its end and returns the names and errors it
// yielded.
func collect(seq iter.Seq2[string, error]) (got []string, errs []error) {
	for n, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, n)
	}
	return got, errs
}

// TestListIteratorsStopOnRepeatedCursor checks that every iterator over a
// list stops, with an error wrapping ErrCursorRepeated that names the
// method and the cursor, when a server answers a cursor it gave before,
// even after other pages; the items before are yielded once each.
func TestListIteratorsStopOnRepeatedCursor(t *testing.T) {
	cycle := map[string]string{"": "A", "A": "B", "B": "C", "C": "A"}
	var asked atomic.Int32
	p := connectClient(t, pagingServer(func(c string) string { return cycle[c] }, &asked), nil)
	for _, it := range listIterators {
		t.Run(it.method, func(t *testing.T) {
			asked.Store(0)
			got, errs := collect(it.iterate(context.Background(), p.cs, nil))
			if want := []string{"first", "A", "B", "C"}; !slices.Equal(got, want) {
				t.Errorf("yielded %v, want %v", got, want)
			}
			if len(errs) != 1 {
				t.Fatalf("yielded errors %v, want one", errs)
			}
			want := `mcp: the server repeated a cursor: ` + it.method + ` answered page 4 with cursor "A", which it gave before`
			if !errors.Is(errs[0], mcp.ErrCursorRepeated) || errs[0].Error() != want {
				t.Errorf("error = %q, want %q wrapping ErrCursorRepeated", errs[0], want)
			}
			if n := asked.Load(); n != 4 {
				t.Errorf("%d requests, want 4", n)
			}

			// The cursor the caller starts from counts as given: from C
			// the server answers A, B, then C again.
			_, errs = collect(it.iterate(context.Background(), p.cs, &mcp.PaginatedParams{Cursor: "C"}))
			want = `mcp: the server repeated a cursor: ` + it.method + ` answered page 3 with cursor "C", which it gave before`
			if len(errs) != 1 || errs[0].Error() != want {
				t.Errorf("from C: errors %v, want [%s]", errs, want)
			}
		})
	}
}

// TestListIteratorsMaxListPages checks ClientOptions.MaxListPages: a
// server whose cursors never repeat nor end is asked for that many pages,
// then the iterator yields an error wrapping ErrTooManyPages.
func TestListIteratorsMaxListPages(t *testing.T) {
	var asked atomic.Int32
	p := connectClient(t, pagingServer(func(c string) string { return c + "x" }, &asked), &mcp.ClientOptions{MaxListPages: 3})
	for _, it := range listIterators {
		t.Run(it.method, func(t *testing.T) {
			asked.Store(0)
			got, errs := collect(it.iterate(context.Background(), p.cs, nil))
			if want := []string{"first", "x", "xx"}; !slices.Equal(got, want) {
				t.Errorf("yielded %v, want %v", got, want)
			}
			want := `mcp: too many pages: ` + it.method + ` has more than 3 pages (ClientOptions.MaxListPages)`
			if len(errs) != 1 || !errors.Is(errs[0], mcp.ErrTooManyPages) || errs[0].Error() != want {
				t.Errorf("errors %v, want [%s] wrapping ErrTooManyPages", errs, want)
			}
			if n := asked.Load(); n != 3 {
				t.Errorf("%d requests, want 3", n)
			}
		})
	}
}

// TestListIteratorsHonourContext checks that an iterator whose context
// ends between pages asks for no more and yields the context's error.
func TestListIteratorsHonourContext(t *testing.T) {
	var asked atomic.Int32
	p := connectClient(t, pagingServer(func(c string) string { return c + "x" }, &asked), nil)
	for _, it := range listIterators {
		t.Run(it.method, func(t *testing.T) {
			asked.Store(0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []string
			var errs []error
			for n, err := range it.iterate(ctx, p.cs, nil) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				got = append(got, n)
				if len(got) == 2 {
					cancel()
				}
			}
			if want := []string{"first", "x"}; !slices.Equal(got, want) {
				t.Errorf("yielded %v, want %v", got, want)
			}
			if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
				t.Errorf("errors %v, want [context.Canceled]", errs)
			}
			if n := asked.Load(); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
}
