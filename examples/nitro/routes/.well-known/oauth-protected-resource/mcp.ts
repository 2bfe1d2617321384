// The protected resource metadata of /mcp (RFC 9728), at the path-aware well-known URL clients try first.
import { defineHandler, HTTPError } from "nitro/h3";
import { auth } from "../../../auth";

export default auth?.metadataHandler ??
  defineHandler(() => {
    throw new HTTPError({ status: 404, message: "This server is not protected" });
  });
