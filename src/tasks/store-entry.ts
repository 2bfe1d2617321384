// The "h3-mcp/tasks/store" entry: what a task store's author writes against (docs/task-stores.md). The
// contract itself (store.ts, and store-runs.ts for runs found by name), the records and outcomes it
// passes, the error a store raises when its backend fails, and the change hub a store relays list and
// resource announcements to. A tool author needs none of it: "h3-mcp/tasks" gives `TaskStore` to type a
// store option and the stores that ship.
export { taskStoreUnavailable } from "../protocol/errors.ts";
export type { Hub, HubEvent } from "../features/change-hub.ts";
export type {
  ClaimableTask,
  ClaimOutcome,
  CreateOutcome,
  FinalStatus,
  FinishedTaskRecord,
  HoldOutcome,
  LiveTaskRecord,
  LoadedRun,
  NewTask,
  StoreRuntime,
  TaskChange,
  TaskFeed,
  TaskFence,
  TaskHold,
  TaskLimits,
  TaskOrigin,
  TaskRecord,
  TaskRunRecord,
  TaskSnapshot,
  TaskStore,
  TaskWrite,
  WriteOutcome,
} from "./store.ts";
