module github.com/mcpkit/mcpkit

go 1.26

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/yosida95/uritemplate/v3 v3.0.2
	go.uber.org/goleak v1.3.0
)
