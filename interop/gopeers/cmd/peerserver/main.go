// Command peerserver serves one of the peer servers of package peers over
// stdio, for mcpkit's CommandTransport and CLI:
//
//	peerserver go-sdk|mcp-go [tools-only]
package main

import (
	"context"
	"fmt"
	"os"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/mcpkit/interop/gopeers/peers"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 || (len(os.Args) == 3 && os.Args[2] != "tools-only") {
		fmt.Fprintln(os.Stderr, "usage: peerserver go-sdk|mcp-go [tools-only]")
		os.Exit(2)
	}
	toolsOnly := len(os.Args) == 3
	var err error
	switch os.Args[1] {
	case "go-sdk":
		err = peers.GoSDKServer("go-sdk-peer", toolsOnly).Run(context.Background(), &gosdk.StdioTransport{})
	case "mcp-go":
		err = mcpgoserver.ServeStdio(peers.MCPGoServer("mcp-go-peer", toolsOnly))
	default:
		fmt.Fprintf(os.Stderr, "peerserver: unknown SDK %q\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "peerserver: %v\n", err)
		os.Exit(1)
	}
}
