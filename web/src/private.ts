// Private tables (docs/private-tables.md): created with a password, an invite link, or the
// creator approving each seat; never in the lobby's list. The creator gets the invite link
// (?table=<id>&invite=<code>) to pass on and a way to open the table; others join by the link or
// by the table's id and password; at the table its creator sees who asks to sit and lets them
// in (or not).
import type { CreateTableResponse } from "./gen/holdem/gateway/v1/gateway_pb";
import { gateway, reason } from "./api";
import { button, h } from "./dom";
import type { Entry } from "./waitlist";

export type Open = (tableId: string, buyIn: bigint, entry: Entry) => void;

/** The new-table fields for privacy, what they add to CreateTable, and what the creator is
 * shown once the table exists. */
export function privateOptions(open: Open): {
  fields: Node[];
  request(): { private: boolean; password: string; approveSeats: boolean };
  created(reply: CreateTableResponse): Node | null;
} {
  const priv = h("input", { id: "new-private", type: "checkbox" });
  const password = h("input", { id: "new-password", type: "password", autocomplete: "new-password" });
  const approve = h("input", { id: "new-approve", type: "checkbox" });
  return {
    fields: [
      h("label", { for: "new-private" }, "Private"),
      priv,
      h("label", { for: "new-password" }, "Password"),
      password,
      h("label", { for: "new-approve" }, "I approve each seat"),
      approve,
    ],
    request: () => ({ private: priv.checked, password: password.value, approveSeats: approve.checked }),
    created(reply: CreateTableResponse): Node | null {
      const t = reply.table;
      if (!t?.private || !reply.inviteCode) return null;
      const link = `${window.location.origin}/?table=${encodeURIComponent(t.tableId)}&invite=${encodeURIComponent(reply.inviteCode)}`;
      return h(
        "div",
        { class: "panel invite", id: "invite" },
        h("h2", {}, "Your private table"),
        h("p", {}, "Invite link (not listed in the lobby): "),
        h("input", { id: "invite-link", readonly: true, value: link, "aria-label": "Invite link" }),
        button("Open my table", () => open(t.tableId, t.config?.maxBuyIn ?? 0n, {})),
      );
    },
  };
}

/** Reads "?table=…&invite=…" (an invite link), once; null when the page was not opened by one. */
export function inviteFromLink(): { tableId: string; entry: Entry } | null {
  const params = new URLSearchParams(window.location.search);
  const tableId = params.get("table");
  const inviteCode = params.get("invite");
  if (!tableId || !inviteCode) return null;
  window.history.replaceState(null, "", "/"); // the code is not left in the address bar
  return { tableId, entry: { inviteCode } };
}

/** The table's max buy-in, from its first view (a private table is not in ListTables). */
export async function maxBuyIn(tableId: string): Promise<bigint> {
  const controller = new AbortController();
  try {
    for await (const u of gateway.watchTable({ tableId, fromSequence: 0n }, { signal: controller.signal })) {
      const v = u.update.case === "snapshot" ? u.update.value : u.view;
      if (v?.config) return v.config.maxBuyIn;
    }
  } finally {
    controller.abort();
  }
  return 0n;
}

/** The lobby's "Join a private table": its invite link, or its id and password. */
export function privateJoinPanel(open: Open): HTMLElement {
  const where = h("input", { id: "private-table", "aria-label": "Table id or invite link" });
  const password = h("input", { id: "private-password", type: "password", "aria-label": "Table password" });
  const status = h("p", { class: "status" });
  async function go(): Promise<void> {
    const text = where.value.trim();
    let tableId = text;
    const entry: Entry = { password: password.value };
    if (text.includes("?")) {
      const params = new URLSearchParams(text.slice(text.indexOf("?")));
      tableId = params.get("table") ?? "";
      entry.inviteCode = params.get("invite") ?? "";
    }
    if (!tableId) {
      status.textContent = text
        ? "Not an invite link (…?table=…&invite=…) or a table id"
        : "Give the table's invite link, or its id and password";
      return;
    }
    try {
      open(tableId, await maxBuyIn(tableId), entry);
    } catch (error) {
      status.textContent = reason(error);
    }
  }
  return h(
    "div",
    { class: "panel private-join" },
    h("h2", {}, "Join a private table"),
    h("label", { for: "private-table" }, "Table id or invite link"),
    where,
    h("label", { for: "private-password" }, "Password"),
    password,
    button("Join private table", () => void go()),
    status,
  );
}

/** At the table, for its creator: who asks to sit (ListSeatRequests, asked every 2 s), with
 * Let sit / Refuse (DecideSeat). Anyone else is told NOT_TABLE_OWNER once and asks no more. */
export function seatRequestsPanel(tableId: string): { el: HTMLElement; stop(): void } {
  const list = h("ul", { class: "seat-requests", id: "seat-requests" });
  const el = h("div", { class: "panel requests", hidden: true }, h("h2", {}, "Asking to sit"), list);
  let timer: ReturnType<typeof setInterval> | undefined = undefined;

  function draw(ids: string[]): void {
    el.hidden = !ids.length;
    list.replaceChildren(
      ...ids.map((id) =>
        h(
          "li",
          { "data-player": id },
          `Player ${id} `,
          button("Let sit", () => void decide(id, true)),
          button("Refuse", () => void decide(id, false)),
        ),
      ),
    );
  }

  async function decide(id: string, approved: boolean): Promise<void> {
    try {
      draw((await gateway.decideSeat({ tableId, seatPlayerId: id, approved })).waitingPlayerIds);
    } catch (error) {
      list.append(h("li", { class: "status" }, reason(error)));
    }
  }

  async function poll(): Promise<void> {
    try {
      draw((await gateway.listSeatRequests({ tableId })).waitingPlayerIds);
    } catch {
      clearInterval(timer); // not the creator (or no such table): nothing to decide here
    }
  }

  timer = setInterval(() => void poll(), 2000);
  void poll();
  return { el, stop: () => clearInterval(timer) };
}
