module github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect/browsertest

go 1.26.0

replace (
	github.com/mcpkit/mcpkit => ../../../../..
	github.com/mcpkit/mcpkit/cmd/mcpkit => ../../..
	github.com/mcpkit/mcpkit/otel => ../../../../../otel
)

require (
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.24.0
	github.com/mcpkit/mcpkit v0.0.0-00010101000000-000000000000
	github.com/mcpkit/mcpkit/cmd/mcpkit v0.0.0-00010101000000-000000000000
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)
