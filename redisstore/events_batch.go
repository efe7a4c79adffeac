package redisstore

import (
	"context"

	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/redis/go-redis/v9"
)

// evAppendBatchLua appends events of one stream (evAppendOnce, for many): KEYS[1]
// events, KEYS[2] bytes; ARGV: stream id, max bytes (0: none), max
// events, ttl ms, channel, session id, max total (the last two for
// evAppendBatchAccount), then an event id, its data and its cost for
// each event. It adds the entries in order, trims the session to its
// caps once, and rings the doorbell once. Replies the bytes kept.
const evAppendBatchLua = `
local add = 0
local last = ''
for i = 8, #ARGV, 3 do
	redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'e', ARGV[i], 'd', ARGV[i + 1], 'n', ARGV[i + 2])
	add = add + tonumber(ARGV[i + 2])
	last = ARGV[i]
end
local bytes = redis.call('INCRBY', KEYS[2], add)
local maxb = tonumber(ARGV[2])
local maxe = tonumber(ARGV[3])
local count = redis.call('XLEN', KEYS[1])
` + evTrimLua + `
if bytes > 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[4])
	redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
redis.call('PUBLISH', ARGV[5], last)
return bytes
`

var evAppendBatch = redis.NewScript(evAppendBatchLua)

// evAppendBatchAccount is evAppendBatch then evAccount in one script, for
// a single Redis (not a Cluster, where the total's keys live in another slot than the session's): KEYS[3..5] are the total's keys.
// Replies evAccount's reply.
var evAppendBatchAccount = redis.NewScript(`
local function append()
` + evAppendBatchLua + `
end
local sizes, deadlines, totalk = KEYS[3], KEYS[4], KEYS[5]
local sid, new, ttl, max = ARGV[6], append(), tonumber(ARGV[4]), tonumber(ARGV[7])
` + evAccountLua)

// AppendBatch implements mcphttp.EventBatchAppender: Append of each event
// in order, in one script, so one round trip on one Redis (two on a
// Cluster, as Append: the total cap's count lives in a slot of its own).
// The Handler stores the first two events of a shared session's POST
// stream, and its last two, with it.
func (e *EventStore) AppendBatch(ctx context.Context, sessionID, streamID string, events []mcphttp.StoredEvent) error {
	if len(events) == 0 {
		return nil
	}
	args := make([]any, 0, 7+3*len(events))
	args = append(args, streamID, e.maxBytes, e.maxEvents, ms(e.ttl), eventChannel(e.prefix, sessionID), sessionID, e.maxTotal)
	for _, ev := range events {
		args = append(args, ev.ID, ev.Data, len(ev.ID)+len(ev.Data)+eventOverhead)
	}
	keys := []string{eventsKey(e.prefix, sessionID), eventBytesKey(e.prefix, sessionID)}
	if _, single := e.rdb.(*redis.Client); single && e.maxTotal > 0 {
		var rep []string
		err := e.call(ctx, "appending events", func(ctx context.Context) error {
			v, err := evAppendBatchAccount.Run(ctx, e.rdb, append(keys, e.totalKeys()...), args...).Result()
			if err != nil {
				return err
			}
			rep, err = replyStrings(v)
			return err
		})
		if err != nil {
			return err
		}
		return e.shrinkOver(ctx, rep, maxShrinks)
	}
	var kept int64
	err := e.call(ctx, "appending events", func(ctx context.Context) error {
		var err error
		kept, err = evAppendBatch.Run(ctx, e.rdb, keys, args...).Int64()
		return err
	})
	if err != nil {
		return err
	}
	return e.account(ctx, sessionID, kept)
}

var _ mcphttp.EventBatchAppender = (*EventStore)(nil)
