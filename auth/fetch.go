package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// isLoopbackHost reports whether host (no port) is localhost or a
// loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// checkURL parses raw and accepts it only if it is an absolute https URL,
// or http on a loopback host, without a fragment.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrInsecureURL, raw, err)
	}
	switch {
	case u.Host == "":
		return nil, fmt.Errorf("%w: %q is not absolute", ErrInsecureURL, raw)
	case u.Fragment != "":
		return nil, fmt.Errorf("%w: %q has a fragment", ErrInsecureURL, raw)
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
	default:
		return nil, fmt.Errorf("%w: %q", ErrInsecureURL, raw)
	}
	return u, nil
}

// httpClient returns the client for authorization traffic: Options'
// client, whose redirects must stay on acceptable URLs.
func (a *Authorizer) httpClient() *http.Client {
	base := a.opts.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	prev := base.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if _, err := checkURL(req.URL.String()); err != nil {
			return err
		}
		if prev != nil {
			return prev(req, via)
		}
		if len(via) >= 5 {
			return errors.New("auth: too many redirects")
		}
		return nil
	}
	return &c
}

// readBody reads at most MaxResponseBytes of resp's body.
func (a *Authorizer) readBody(resp *http.Response) ([]byte, error) {
	limit := a.maxResponseBytes()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("auth: reading %s: %w", resp.Request.URL, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s sent more than %d bytes (Options.MaxResponseBytes)", ErrResponseTooLarge, resp.Request.URL, limit)
	}
	return data, nil
}

// do sends req with the fetch timeout.
func (a *Authorizer) do(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	if _, err := checkURL(req.URL.String()); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.fetchTimeout())
	defer cancel()
	resp, err := a.httpClient().Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, fmt.Errorf("auth: %s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	data, err := a.readBody(resp)
	if err != nil {
		return nil, nil, err
	}
	return resp, data, nil
}

// errNotFound is a metadata document that is not there (any non-200
// answer): discovery goes on to the next URL.
var errNotFound = errors.New("auth: not found")

// getJSON fetches a metadata document into v.
func (a *Authorizer) getJSON(ctx context.Context, raw string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	a.setProtocolHeader(req)
	resp, data, err := a.do(ctx, req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: HTTP %d", errNotFound, raw, resp.StatusCode)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("auth: GET %s: invalid JSON: %w", raw, err)
	}
	return nil
}

// setProtocolHeader adds MCP-Protocol-Version to discovery requests when
// the options name one
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-metadata-discovery).
func (a *Authorizer) setProtocolHeader(req *http.Request) {
	if a.opts.ProtocolVersion != "" {
		req.Header.Set("MCP-Protocol-Version", a.opts.ProtocolVersion)
	}
}
