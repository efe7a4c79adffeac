package redisstore_test

import (
	"context"
	"log"
	"net/http"

	"github.com/redis/go-redis/v9"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
)

// This example is one replica of a server that runs as several behind any
// load balancer: sessions, SSE events, tasks and the messages between
// replicas live in one Redis, so any replica serves any session (see
// docs/scaling.md). Every replica runs the same code with the same Redis
// and prefix. It needs a Redis, so it is compiled but not run here.
func Example_replicas() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		log.Fatal(err)
	}
	sessions, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: "myapp:"})
	if err != nil {
		log.Fatal(err)
	}
	events, err := redisstore.NewEventStore(rdb, &redisstore.EventOptions{Prefix: "myapp:"})
	if err != nil {
		log.Fatal(err)
	}
	tasks, err := redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Prefix: "myapp:"})
	if err != nil {
		log.Fatal(err)
	}
	bus, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: "myapp:"})
	if err != nil {
		log.Fatal(err)
	}

	opts := &mcp.ServerOptions{SessionStore: sessions, Bus: bus}
	opts.Tasks.Store = tasks
	server := mcp.NewServer(mcp.Implementation{Name: "replicated", Version: "1.0.0"}, opts)
	// ... mcp.AddTool(server, ...)

	h := mcphttp.NewHandler(server, &mcphttp.Options{EventStore: events})
	defer h.Shutdown(ctx)
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}
