package mcp

// The client side of every list method: one call for a page, one iterator
// over every page
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
)

// The errors that stop an iterator over a server whose cursors never end.
var (
	// ErrCursorRepeated is wrapped by the error an iterator over a list
	// (ClientSession.Tools and the like) yields when the server answers a
	// cursor it already gave in the same iteration.
	ErrCursorRepeated = errors.New("mcp: the server repeated a cursor")
	// ErrTooManyPages is wrapped by the error an iterator over a list
	// yields when the server has more pages than ClientOptions.MaxListPages.
	ErrTooManyPages = errors.New("mcp: too many pages")
)

// defaultMaxListPages is ClientOptions.MaxListPages when zero.
const defaultMaxListPages = 10000

// pageOf returns a page's items and the cursor of the next page, for
// paginate.
func (r *ListToolsResult) pageOf() ([]*Tool, string)         { return r.Tools, r.NextCursor }
func (r *ListPromptsResult) pageOf() ([]*Prompt, string)     { return r.Prompts, r.NextCursor }
func (r *ListResourcesResult) pageOf() ([]*Resource, string) { return r.Resources, r.NextCursor }
func (r *ListResourceTemplatesResult) pageOf() ([]*ResourceTemplate, string) {
	return r.ResourceTemplates, r.NextCursor
}
func (r *ListTasksResult) pageOf() ([]*Task, string) { return r.Tasks, r.NextCursor }

// callList asks for one page of a list method; nil params ask for the
// first.
func callList[R any](ctx context.Context, cs *ClientSession, method string, params *PaginatedParams) (*R, error) {
	if params == nil {
		params = &PaginatedParams{}
	}
	return call[R](ctx, cs, method, params)
}

// call sends a request and decodes its result as an R.
func call[R any](ctx context.Context, cs *ClientSession, method string, params any) (*R, error) {
	res := new(R)
	if err := cs.Call(ctx, method, params, res); err != nil {
		return nil, err
	}
	return res, nil
}

// paginate iterates over every item of a list method, page after page,
// from params.Cursor (nil params start at the first page). It stops after
// yielding an error once: a page's, ctx's, or one wrapping
// ErrCursorRepeated or ErrTooManyPages.
func paginate[R, T any](ctx context.Context, cs *ClientSession, method string, params *PaginatedParams, items func(*R) ([]T, string)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		p := PaginatedParams{}
		if params != nil {
			p = *params
		}
		limit := cs.client.opts.MaxListPages
		// The cursors of this iteration, hashed: a cursor may be long.
		seed := maphash.MakeSeed()
		seen := map[uint64]bool{maphash.String(seed, p.Cursor): true}
		for pages := 1; ; pages++ {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			if limit > 0 && pages > limit {
				yield(zero, fmt.Errorf("%w: %s has more than %d pages (ClientOptions.MaxListPages)", ErrTooManyPages, method, limit))
				return
			}
			res, err := callList[R](ctx, cs, method, &p)
			if err != nil {
				yield(zero, err)
				return
			}
			page, next := items(res)
			for _, item := range page {
				if !yield(item, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			h := maphash.String(seed, next)
			if seen[h] {
				yield(zero, fmt.Errorf("%w: %s answered page %d with cursor %q, which it gave before", ErrCursorRepeated, method, pages, clip(next, 64)))
				return
			}
			seen[h] = true
			p.Cursor = next
		}
	}
}

// clip returns s cut to at most n bytes, marked with "..." when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
