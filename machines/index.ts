/**
 * The statecharts of h3-mcp. They import only `xstate`, so they load in the Stately inspector and in `xstate/graph`.
 *
 * @example
 * import { taskMachine } from "h3-mcp/machines";
 */
export {
  taskMachine,
  type InputRequest,
  type JsonRpcErrorObject,
  type TaskContext,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from "./task.machine.ts";
