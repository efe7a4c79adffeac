module github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect/browsertest

go 1.26.0

replace (
	github.com/mcpkit/mcpkit => ../../../../..
	github.com/mcpkit/mcpkit/cmd/mcpkit => ../../..
	github.com/mcpkit/mcpkit/otel => ../../../../../otel
)

require (
	github.com/chromedp/chromedp v0.24.0
	github.com/mcpkit/mcpkit v0.0.0-00010101000000-000000000000
	github.com/mcpkit/mcpkit/cmd/mcpkit v0.0.0-00010101000000-000000000000
)

require (
	github.com/chromedp/cdproto v0.160.1 // indirect
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/goccy/go-json v0.11.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/lestrrat-go/blackmagic v1.0.4 // indirect
	github.com/lestrrat-go/dsig v1.4.0 // indirect
	github.com/lestrrat-go/dsig-secp256k1 v1.0.0 // indirect
	github.com/lestrrat-go/httpcc v1.0.1 // indirect
	github.com/lestrrat-go/httprc/v3 v3.0.6 // indirect
	github.com/lestrrat-go/jwx/v3 v3.4.0 // indirect
	github.com/lestrrat-go/option/v2 v2.0.0 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/valyala/fastjson v1.6.10 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.38.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
