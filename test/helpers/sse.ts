// The tests read listen streams with the store kit's SSE reader (src/tasks/testing/client.ts).
export { sseReader, type SseReader } from "../../src/tasks/testing/client.ts";
