// An official SDK client for a 2026-07-28 server, with the official tasks client on top. The SDK Client
// serves everything but tasks (tools/list, a tool that answers at once, prompts, resources, listen); the
// session from ext-tasks calls the tools that may answer with a task, follows them, answers their
// questions and cancels them.
import { applyMiddlewares, Client, StreamableHTTPClientTransport, withOAuth, type OAuthClientProvider } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskEnabledSession, type WithTasksOptions } from "@modelcontextprotocol/ext-tasks/client";
import { fetchDispatch, PROTOCOL_VERSION } from "./raw-dispatch.ts";

const clientInfo = { name: "my-client", version: "1.0.0" };
// Declared on the Client and on every task request: the server only answers with a task to a request that
// declares the extension; `elicitation` lets a task ask the user a question.
const clientCapabilities = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } };

export interface Connected {
  client: Client;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

/**
 * Connects to `url`. With `authProvider`, the SDK finds the authorization server from the first 401 and gets
 * a token; the task requests carry the same token through the SDK's OAuth middleware.
 */
export async function connect(
  url: URL,
  options: { authProvider?: OAuthClientProvider; onInputRequest?: WithTasksOptions["onInputRequest"] } = {},
): Promise<Connected> {
  const client = new Client(clientInfo, {
    capabilities: clientCapabilities,
    // Speak 2026-07-28 only: without the pin, the client may settle on an older version with a session.
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
  });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: options.authProvider }));
  const taskFetch = options.authProvider ? applyMiddlewares(withOAuth(options.authProvider, url))(fetch) : fetch;
  const session = createTaskSessionFromClient(client, {
    endpointId: url.href,
    rawDispatch: fetchDispatch(url, taskFetch),
    // The per-request `_meta` every 2026-07-28 request carries, which the SDK does not hand to ext-tasks.
    v2RequestFraming: { protocolVersion: PROTOCOL_VERSION, clientInfo, clientCapabilities },
    onInputRequest: options.onInputRequest,
  });
  return {
    client,
    session,
    async close() {
      await session.close();
      await client.close();
    },
  };
}
