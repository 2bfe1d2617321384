// The little of oidc-provider's API the test authorization server uses (the package ships no types).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Who {
    clientId: string;
  }
  type Ctx = unknown;

  export interface Configuration {
    clients: Record<string, unknown>[];
    jwks: { keys: Record<string, unknown>[] };
    clientDefaults?: Record<string, unknown>;
    scopes?: string[];
    pkce?: { required(ctx: Ctx, client: Who): boolean };
    findAccount?(ctx: Ctx, sub: string): { accountId: string; claims(): Record<string, unknown> };
    features?: {
      clientCredentials?: { enabled: boolean };
      introspection?: { enabled: boolean; allowedPolicy?(ctx: Ctx, caller: Who, token: unknown): Promise<boolean> };
      revocation?: { enabled: boolean };
      devInteractions?: { enabled: boolean };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?(ctx: Ctx, client: Who, oneOf?: string): string | undefined;
        useGrantedResource?(ctx: Ctx, model: unknown): boolean;
        getResourceServerInfo?(ctx: Ctx, resource: string, client: Who): Record<string, unknown>;
      };
    };
    extraTokenClaims?(ctx: Ctx, token: unknown): Record<string, unknown> | undefined;
    ttl?: Record<string, number | ((ctx: Ctx, token: unknown, client: Who) => number)>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: "server_error", listener: (ctx: Ctx, error: Error) => void): this;
  }
}
