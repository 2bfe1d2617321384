// The same against a server that wants an OAuth access token, as a machine client (client_credentials):
//   MCP_CLIENT_ID=… MCP_CLIENT_SECRET=… MCP_ISSUER=https://auth.example.com \
//   npx tsx examples/official-client/oauth.ts https://mcp.example.com/mcp [tool]
// The SDK finds the authorization server from the server's first 401 and gets a token for this server
// (RFC 8707 resource); every task request then carries it too.
import { ClientCredentialsProvider } from "@modelcontextprotocol/client";
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { connect } from "./connect.ts";

const url = new URL(process.argv[2] ?? "http://127.0.0.1:3000/mcp");
const tool = process.argv[3] ?? "slow_task";
const authProvider = new ClientCredentialsProvider({
  clientId: process.env.MCP_CLIENT_ID!,
  clientSecret: process.env.MCP_CLIENT_SECRET!,
  expectedIssuer: process.env.MCP_ISSUER,
});
const { client, session, close } = await connect(url, { authProvider });

try {
  // A tool that answers at once goes through the SDK client itself.
  const who = await client.callTool({ name: "whoami", arguments: {} });
  console.log(`whoami: ${JSON.stringify(who.structuredContent ?? who.content)}`);

  const execution = await session.callTool(tool, {});
  if (execution.kind === "task") {
    const { outcome } = await execution.settle();
    console.log(`${tool}: ${outcome.status} ${JSON.stringify(resultFromTaskOutcome(outcome))}`);
  }
} finally {
  await close();
}
