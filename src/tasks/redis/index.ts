// The "h3-mcp/tasks/redis" entry: a task store shared by every instance through Redis.
//   redis-task-store.ts   redisTaskStore(options): the TaskStore (create, read, write, lease, catch-up, relay)
//   scripts.ts            the Lua scripts: creation with the caps, the read, the compare-and-set, versions
//   reader.ts, finished.ts   reading a task in one command; a finished task's one-string form, and the
//                         finished tasks this instance knows (read with a plain GET)
//   owner-hash.ts, keys.ts   what an owner and a key look like in Redis (a live snapshot: ../snapshot-codec.ts;
//                         the change channel's messages: ../change-messages.ts)
//   connection.ts, deadlines.ts   the two connections, every command bounded by one timer
//   ../hub-bridge.ts      list-changed and resource-updated announcements between instances
//   run-holds.ts, run-scripts.ts, run-lua.ts   runs found by name: claims, hand-offs, fences, the claimable
//                         tasks, their scripts and the Lua they share with creation and the compare-and-set
//   ../sealed-parts.ts    what else of a task with a run is sealed under `secret` (../run-seal.ts): its
//                         live snapshot, its change messages
export { redisTaskStore } from "./redis-task-store.ts";
export type { RedisTaskStore, RedisTaskStoreOptions, RedisTaskStoreStats } from "./redis-task-store.ts";
export type { RedisClientLike } from "./connection.ts";
