// The one export of workerd's built-in module that workers-platform.workerd.ts reads. Optional:
// workerd has exported it since August 2025.
declare module "cloudflare:workers" {
  export const waitUntil: ((promise: Promise<unknown>) => void) | undefined;
}
