// The SEP-2322 (MRTR) fixtures: tools that answer `input_required` and finish on the client's retry.
// Keys, messages and schemas are the ones the suite's descriptions name (conformance/fixtures.md, D.13).
import {
  defineTool,
  getMcpContext,
  mcpElicit,
  mcpInput,
  mcpInputRequired,
  mcpListRoots,
  mcpRequestState,
  mcpSample,
  type InputRequest,
} from "h3-mcp";
import { elicited, rootUris, sampledText } from "../answers.ts";

const askName = mcpElicit({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});

const askCapital = mcpSample({
  messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
  maxTokens: 100,
});

const askConfirm = mcpElicit({
  message: "Please confirm",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
});

export const elicitationTool = defineTool({
  name: "test_input_required_result_elicitation",
  description: "Asks for your name (elicitation), then greets you",
  handler: (event) => {
    const input = mcpInput(event, { user_name: askName });
    // A missing, wrong-key or malformed answer (e.g. `12345`) is asked for again, never taken as complete.
    const name = elicited(askName, input.answers.user_name);
    if (name === undefined) return mcpInputRequired(event, { user_name: askName });
    if (name === "refused") return "Hello, stranger!";
    return `Hello, ${name.name}!`;
  },
});

export const samplingTool = defineTool({
  name: "test_input_required_result_sampling",
  description: "Asks the client's model for the capital of France",
  handler: (event) => {
    const text = sampledText(mcpInput(event, { capital_question: askCapital }).answers.capital_question);
    if (text === undefined) return mcpInputRequired(event, { capital_question: askCapital });
    return `The model answered: ${text}`;
  },
});

export const listRootsTool = defineTool({
  name: "test_input_required_result_list_roots",
  description: "Asks the client for its roots and lists them",
  handler: (event) => {
    const request = mcpListRoots();
    const uris = rootUris(mcpInput(event, { client_roots: request }).answers.client_roots);
    if (uris === undefined) return mcpInputRequired(event, { client_roots: request });
    return `Client roots: ${uris.join(", ") || "(none)"}`;
  },
});

export const requestStateTool = defineTool({
  name: "test_input_required_result_request_state",
  description: "Asks for a confirmation and round-trips a signed requestState",
  handler: (event) => {
    const input = mcpInput(event, { confirm: askConfirm });
    const state = mcpRequestState<{ stage: string }>(event);
    const answer = elicited(askConfirm, input.answers.confirm);
    // Without the state this server issued, the answer is not trusted to belong to this round.
    if (answer === undefined || state?.stage !== "confirm") {
      return mcpInputRequired(event, { confirm: askConfirm }, { state: { stage: "confirm" } });
    }
    return answer !== "refused" && answer.ok ? "state-ok: confirmed" : "state-ok: not confirmed";
  },
});

export const multipleInputsTool = defineTool({
  name: "test_input_required_result_multiple_inputs",
  description: "Asks for a name, a generated greeting and the client's roots in one round",
  handler: (event) => {
    const requests = {
      user_name: askName,
      greeting: mcpSample({ messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }], maxTokens: 50 }),
      client_roots: mcpListRoots(),
    };
    const { answers } = mcpInput(event, requests);
    const name = elicited(askName, answers.user_name);
    const greeting = sampledText(answers.greeting);
    const roots = rootUris(answers.client_roots);
    if (name === undefined || greeting === undefined || roots === undefined) {
      // Ask only for what is still missing; the state marks this server's round.
      const missing: Record<string, InputRequest> = {};
      if (name === undefined) missing.user_name = requests.user_name;
      if (greeting === undefined) missing.greeting = requests.greeting;
      if (roots === undefined) missing.client_roots = requests.client_roots;
      return mcpInputRequired(event, missing, { state: { stage: "all" } });
    }
    const who = name === "refused" ? "stranger" : name.name;
    return `${greeting} ${who}, you have ${roots.length} root(s).`;
  },
});

const askStep1 = mcpElicit({
  message: "Step 1: What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});
const askStep2 = mcpElicit({
  message: "Step 2: What is your favorite color?",
  requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
});

type Rounds = { step: 1 } | { step: 2; name: string };

export const multiRoundTool = defineTool({
  name: "test_input_required_result_multi_round",
  description: "Asks two questions in two rounds, carrying the first answer in requestState",
  handler: (event) => {
    const state = mcpRequestState<Rounds>(event);
    if (state?.step === 2) {
      const color = elicited(askStep2, mcpInput(event, { step2: askStep2 }).answers.step2);
      if (color === undefined) return mcpInputRequired(event, { step2: askStep2 }, { state });
      return `${state.name}'s favorite color is ${color === "refused" ? "a secret" : color.color}.`;
    }
    const name = state?.step === 1 ? elicited(askStep1, mcpInput(event, { step1: askStep1 }).answers.step1) : undefined;
    if (name === undefined) return mcpInputRequired(event, { step1: askStep1 }, { state: { step: 1 } });
    // Round 2 gets a new state carrying the first answer: the server itself keeps nothing between rounds.
    const next: Rounds = { step: 2, name: name === "refused" ? "Someone" : (name.name ?? "Someone") };
    return mcpInputRequired(event, { step2: askStep2 }, { state: next });
  },
});

export const tamperedStateTool = defineTool({
  name: "test_input_required_result_tampered_state",
  description: "Asks for a confirmation with a signed requestState; a tampered state is rejected with -32602",
  handler: (event) => {
    // A modified requestState never gets here: the server answers -32602 before the handler runs.
    const state = mcpRequestState<{ stage: string }>(event);
    const answer = elicited(askConfirm, mcpInput(event, { confirm: askConfirm }).answers.confirm);
    if (answer === undefined || state?.stage !== "tamper-check") {
      return mcpInputRequired(event, { confirm: askConfirm }, { state: { stage: "tamper-check" } });
    }
    return "State verified.";
  },
});

export const capabilitiesTool = defineTool({
  name: "test_input_required_result_capabilities",
  description: "Asks only for the kinds of input the client declared (elicitation, sampling, roots)",
  handler: (event) => {
    const caps = getMcpContext(event).clientCapabilities;
    // Asking for an undeclared kind would be -32021: pick only what this request's capabilities allow.
    const requests: Record<string, InputRequest> = {};
    if (caps.elicitation) requests.user_name = askName;
    if (caps.sampling) requests.capital_question = askCapital;
    if (caps.roots) requests.client_roots = mcpListRoots();
    if (!Object.keys(requests).length) return "The client declared no input capability: nothing to ask.";
    const input = mcpInput(event, requests);
    if (!input.complete) return input.ask();
    return `Received ${Object.keys(input.answers).join(", ")}.`;
  },
});

export const mrtrTools = [
  elicitationTool,
  samplingTool,
  listRootsTool,
  requestStateTool,
  multipleInputsTool,
  multiRoundTool,
  tamperedStateTool,
  capabilitiesTool,
];
