// Command notes is an MCP server that keeps notes in memory. It shows the
// pieces most servers need: typed tools with structured output (add_note,
// search_notes), a resource template (note://{id}), a typed prompt
// (summarize), and progress and log messages sent while a tool runs. It
// serves stdio, or Streamable HTTP on 127.0.0.1 with -http, where
// -max-sessions caps the live sessions:
//
//	mcpkit tools call add_note --args '{"title":"Milk","text":"Buy milk."}' -- go run ./examples/notes
//	go run ./examples/notes -http 127.0.0.1:8080 -max-sessions 100
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Note is one note, as the tools return it.
type Note struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// notebook holds the notes of every client, safe for concurrent use.
type notebook struct {
	mu    sync.Mutex
	notes []Note
}

func (b *notebook) add(title, text string) Note {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := Note{ID: len(b.notes) + 1, Title: title, Text: text}
	b.notes = append(b.notes, n)
	return n
}

func (b *notebook) get(id int) (Note, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id < 1 || id > len(b.notes) {
		return Note{}, false
	}
	return b.notes[id-1], true
}

func (b *notebook) all() []Note {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Note(nil), b.notes...)
}

// AddArgs is the input of add_note; its JSON Schema is inferred from the
// type, and arguments that do not match it never reach the handler.
type AddArgs struct {
	Title string `json:"title" jsonschema:"a short title"`
	Text  string `json:"text" jsonschema:"the note itself"`
}

// SearchArgs is the input of search_notes.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"words to look for, in titles and texts, ignoring case"`
}

// SearchResult is the output of search_notes. A struct result is sent as
// structuredContent (and as JSON text), described by an inferred
// outputSchema.
type SearchResult struct {
	Matches []Note `json:"matches"`
}

// SummarizeArgs are the arguments of the summarize prompt: each string
// field is one, and omitempty makes it optional.
type SummarizeArgs struct {
	ID    string `json:"id" description:"the id of the note"`
	Style string `json:"style,omitempty" description:"how to summarize it, for example \"in one line\""`
}

func newServer(b *notebook) (*mcp.Server, error) {
	s := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, &mcp.ServerOptions{
		// Declares logging: without it Request.Log sends nothing.
		Logging: &mcp.LoggingOptions{},
	})

	err := mcp.AddTool(s, &mcp.Tool{Name: "add_note", Description: "Adds a note."},
		func(ctx context.Context, req *mcp.Request, in AddArgs) (Note, error) {
			if strings.TrimSpace(in.Title) == "" {
				return Note{}, errors.New("the title is empty") // isError content, for the model
			}
			n := b.add(in.Title, in.Text)
			// Sent to the client if it asked for info or more verbose.
			err := req.Log(ctx, mcp.LevelInfo, "notes", fmt.Sprintf("added note %d: %s", n.ID, n.Title))
			return n, err
		})
	if err != nil {
		return nil, err
	}

	err = mcp.AddTool(s, &mcp.Tool{Name: "search_notes", Description: "Finds the notes that contain the query."},
		func(ctx context.Context, req *mcp.Request, in SearchArgs) (SearchResult, error) {
			notes := b.all()
			res := SearchResult{Matches: []Note{}}
			for i, n := range notes {
				if ctx.Err() != nil { // the client cancelled
					return SearchResult{}, ctx.Err()
				}
				text := strings.ToLower(n.Title + "\n" + n.Text)
				if strings.Contains(text, strings.ToLower(in.Query)) {
					res.Matches = append(res.Matches, n)
				}
				// Sent only if the client gave a progress token.
				if err := req.ReportProgress(ctx, float64(i+1), float64(len(notes)), ""); err != nil {
					return SearchResult{}, err
				}
			}
			msg := fmt.Sprintf("%d of %d notes match %q", len(res.Matches), len(notes), in.Query)
			return res, req.Log(ctx, mcp.LevelInfo, "notes", msg)
		})
	if err != nil {
		return nil, err
	}

	// Every note is a resource, note://1, note://2, ...: one template
	// serves them all, with the id as a variable.
	err = s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "note://{id}", Name: "note", MIMEType: "text/markdown",
		Description: "A note, by its id.",
	}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		id, _ := strconv.Atoi(p.Variables["id"])
		n, ok := b.get(id)
		if !ok {
			return nil, mcp.ResourceNotFoundError(p.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{Text: "# " + n.Title + "\n\n" + n.Text + "\n"},
		}}, nil
	})
	if err != nil {
		return nil, err
	}

	// A missing required argument is refused before the handler runs; a
	// *jsonrpc.Error from the handler is sent as it is.
	err = mcp.AddPrompt(s, &mcp.Prompt{Name: "summarize", Description: "Asks for a summary of a note."},
		func(_ context.Context, _ *mcp.Request, in SummarizeArgs) (*mcp.GetPromptResult, error) {
			id, _ := strconv.Atoi(in.ID)
			n, ok := b.get(id)
			if !ok {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "no note "+in.ID)
			}
			text := fmt.Sprintf("Summarize this note %s:\n\n# %s\n\n%s", cmp.Or(in.Style, "in a few words"), n.Title, n.Text)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}},
			}}, nil
		})
	return s, err
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `host:port` (port 0 picks a free port) instead of stdio")
	maxSessions := flag.Int("max-sessions", 100, "with -http, the most live sessions; one more initialize is answered 503")
	flag.Parse()
	// stdout may carry the protocol: log to stderr.
	log.SetOutput(os.Stderr)

	b := &notebook{}
	b.add("Welcome", "Notes live in memory until the server stops.")
	s, err := newServer(b)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		// Serve on stdin/stdout until the client closes stdin.
		if err := s.Run(ctx, &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := serveHTTP(ctx, s, *addr, *maxSessions); err != nil {
		log.Fatal(err)
	}
}

// serveHTTP serves s at /mcp until ctx ends, then shuts down gracefully.
func serveHTTP(ctx context.Context, s *mcp.Server, addr string, maxSessions int) error {
	h := mcphttp.NewHandler(s, &mcphttp.Options{MaxSessions: maxSessions})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	log.Printf("listening on http://%s/mcp", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done(): // Ctrl-C or SIGTERM
	}
	// The handler first: it ends its streams, which http.Server.Shutdown
	// would otherwise wait for.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hErr := h.Shutdown(shutdownCtx)
	if err := errors.Join(hErr, srv.Shutdown(shutdownCtx)); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Print("stopped")
	return nil
}
