// The "h3-mcp/tasks/redis" entry: a task store shared by every instance through Redis.
export { redisTaskStore } from "./redis-task-store.ts";
export type { RedisTaskStore, RedisTaskStoreOptions, RedisTaskStoreStats } from "./redis-task-store.ts";
export type { RedisClientLike } from "./connection.ts";
