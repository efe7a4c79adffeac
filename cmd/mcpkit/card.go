package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/ext/servercard"
)

// maxCardBytes bounds the card `mcpkit card` reads: a server cannot make
// it hold more.
const maxCardBytes = 1 << 20

// cardCommand implements `mcpkit card URL`: it GETs the Server Card of
// the streamable-HTTP endpoint URL (URL/server-card; URL itself when it
// ends in /server-card) with Accept: application/mcp-server-card+json,
// and prints it indented, or as served with --json. A card that breaks
// the draft schema is printed, then reported (exit status 1).
func cardCommand(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("card")
	var headers stringList
	fs.Var(&headers, "header", "send the HTTP header `NAME:VALUE` (repeatable)")
	timeout := fs.Duration("timeout", defaultTimeout, "how long to wait for the card; 0: no limit")
	asJSON := fs.Bool("json", false, "print the card as the server sent it")
	positional, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usagef("card: want one URL, the MCP endpoint (such as http://127.0.0.1:8080/mcp)")
	}
	u, err := url.Parse(positional[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("card: %q is not an http or https URL", positional[0])
	}
	header, err := parseHeaders(headers)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(u.Path, servercard.CardSuffix) {
		u.Path = strings.TrimSuffix(u.Path, "/") + servercard.CardSuffix
		u.RawPath = ""
	}
	u.RawQuery, u.Fragment = "", ""
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	body, err := fetchCard(ctx, u.String(), header)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("card: no card from %s within --timeout %s", u, timeout.Round(time.Millisecond))
		}
		return fmt.Errorf("card: %w", err)
	}
	var card servercard.Card
	if err := json.Unmarshal(body, &card); err != nil {
		return fmt.Errorf("card: %s sent no JSON object: %w", u, err)
	}
	if *asJSON {
		_, err = e.stdout.Write(append(bytes.TrimRight(body, "\n"), '\n'))
	} else {
		var out bytes.Buffer
		json.Indent(&out, body, "", "  ") // it decoded, so it indents
		out.WriteByte('\n')
		_, err = e.stdout.Write(out.Bytes())
	}
	if err != nil {
		return err
	}
	if err := card.Validate(); err != nil {
		return fmt.Errorf("card: the card at %s breaks the draft schema: %w", u, err)
	}
	return nil
}

// fetchCard GETs the card at cardURL, at most maxCardBytes of it.
func fetchCard(ctx context.Context, cardURL string, header http.Header) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", servercard.MediaType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", cardURL, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the card: %w", cardURL, err)
	}
	if len(body) > maxCardBytes {
		return nil, fmt.Errorf("GET %s: the card is larger than %d bytes", cardURL, maxCardBytes)
	}
	return body, nil
}
