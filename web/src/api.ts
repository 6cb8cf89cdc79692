// The gateway, over Connect on the origin that served this page. The token lives in this tab's
// sessionStorage: it survives a reload but is not shared with other tabs and is gone when the tab
// closes; it is sent only as the Authorization header by this code (never a cookie, so no other
// site's page can make the browser send it), and the strict Content-Security-Policy allows no
// script but the page's own to read it.
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { GatewayService } from "./gen/holdem/gateway/v1/gateway_pb";

const TOKEN = "holdem.token";
const PLAYER = "holdem.player";

export interface Session {
  token: string;
  playerId: string;
  name: string;
}

export function session(): Session | null {
  const token = sessionStorage.getItem(TOKEN);
  const player = sessionStorage.getItem(PLAYER);
  if (!token || !player) return null;
  const [playerId, name] = JSON.parse(player) as [string, string];
  return { token, playerId, name };
}

export function saveSession(s: Session | null): void {
  if (s === null) {
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(PLAYER);
    return;
  }
  sessionStorage.setItem(TOKEN, s.token);
  sessionStorage.setItem(PLAYER, JSON.stringify([s.playerId, s.name]));
}

const bearer: Interceptor = (next) => async (req) => {
  const s = session();
  if (s) req.header.set("authorization", `Bearer ${s.token}`);
  return next(req);
};

export const gateway = createClient(
  GatewayService,
  createConnectTransport({
    baseUrl: window.location.origin,
    useBinaryFormat: true,
    interceptors: [bearer],
  }),
);

export function key(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** A refusal as a person reads it: the server's message and its stable code. */
export function reason(error: unknown): string {
  if (error instanceof ConnectError) {
    const code = error.metadata.get("x-error-code");
    return code ? `${error.rawMessage} (${code})` : error.rawMessage;
  }
  return String(error);
}

export function isUnauthenticated(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.Unauthenticated;
}
