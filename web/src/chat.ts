// Chat (docs/chat.md): the lobby's room, or a table's (and its spectators' room when the table
// keeps them apart). Messages are players' own words, streamed by WatchChat and resumed after the
// last one seen; each other player's message offers Mute (MuteChatPlayer), and the muted list
// offers Unmute. A refused message (too long, flooding, a link) says why under the box and
// changes nothing.
import { create } from "@bufbuild/protobuf";
import type { PlayerView } from "./gen/holdem/common/v1/common_pb";
import { type ChatMessage, ChatMessageSchema } from "./gen/holdem/gateway/v1/gateway_pb";
import { gateway, key, reason, session } from "./api";
import { button, h } from "./dom";

export interface ChatPanel {
  el: HTMLElement;
  /** At a table: who the viewer is there now (a spectator reads the spectators' room too). */
  update(v: PlayerView): void;
  stop(): void;
}

/** The chat of a table, or of the lobby (tableId ""). */
export function chatPanel(tableId: string): ChatPanel {
  const me = session();
  let controller = new AbortController();
  let seated: boolean | null = null; // at a table: whether the viewer sat when the stream opened
  const messages: ChatMessage[] = [];
  const muted = new Map<string, string>(); // player id -> name
  let last = 0n;
  let stopped = false;

  const list = h("ol", { class: "chat-messages", id: tableId ? "table-chat" : "lobby-chat", "aria-live": "polite" });
  const input = h("input", { id: tableId ? "table-chat-text" : "lobby-chat-text", "aria-label": "Message" });
  const status = h("p", { class: "status chat-status", role: "status" });
  const room = h("p", { class: "chat-room" });
  const mutedEl = h("p", { class: "chat-muted" });

  function draw(): void {
    list.replaceChildren(
      ...messages
        .filter((m) => !muted.has(m.senderId))
        .slice(-50)
        .map((m) =>
          h(
            "li",
            { class: `chat-message${m.room.endsWith(".spectators") ? " spectators" : ""}`, "data-sender": m.senderId },
            h("span", { class: "chat-sender" }, m.senderName + (m.spectator ? " (watching)" : "")),
            h("span", { class: "chat-text" }, m.text),
            m.senderId !== me?.playerId && button("Mute", () => void mute(m.senderId, m.senderName, true)),
          ),
        ),
    );
    list.scrollTop = list.scrollHeight;
    mutedEl.replaceChildren(
      ...(muted.size ? ["Muted: "] : []),
      ...[...muted].map(([id, name]) => button(`Unmute ${name}`, () => void mute(id, name, false))),
    );
  }

  async function mute(playerId: string, name: string, yes: boolean): Promise<void> {
    try {
      await gateway.muteChatPlayer({ playerId, muted: yes });
      if (yes) muted.set(playerId, name);
      else muted.delete(playerId);
      status.textContent = "";
      draw();
    } catch (error) {
      status.textContent = reason(error);
    }
  }

  async function send(): Promise<void> {
    const text = input.value;
    if (!text.trim()) return;
    try {
      const reply = await gateway.sendChat({ tableId, text, idempotencyKey: key() });
      input.value = "";
      status.textContent = "";
      if (reply.message) add(reply.message);
    } catch (error) {
      status.textContent = reason(error); // e.g. "… (CHAT_TOO_LONG)": the message was not posted
    }
  }

  function add(m: ChatMessage): void {
    if (messages.some((x) => x.sequence === m.sequence && x.room === m.room)) return;
    messages.push(create(ChatMessageSchema, m));
    messages.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
    draw();
  }

  async function watch(): Promise<void> {
    const signal = controller.signal;
    while (!stopped && !signal.aborted) {
      try {
        for await (const m of gateway.watchChat({ tableId, fromSequence: last }, { signal })) {
          if (m.sequence > last) last = m.sequence;
          add(m);
        }
        return;
      } catch (error) {
        if (stopped || signal.aborted) return;
        status.textContent = `Chat: ${reason(error)}`;
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") void send();
    event.stopPropagation(); // the table's keys (f, c, r…) are not for the chat box
  });
  if (!tableId) void watch();
  return {
    el: h(
      "details",
      { class: "chat", open: true },
      h("summary", {}, tableId ? "Table chat" : "Lobby chat"),
      room,
      list,
      h("div", { class: "row" }, input, button("Send", () => void send())),
      status,
      mutedEl,
    ),
    update(v: PlayerView): void {
      const apart = v.config?.separateSpectatorChat ?? false;
      const sits = v.viewerSeat !== undefined;
      if (seated === null) void watch(); // a table's rooms depend on the seat: opened with the first view
      else if (apart && seated !== sits) {
        // the server picks the rooms when the stream opens: sitting down (or leaving) at a
        // table that keeps spectators apart reads the rooms again, from the start
        controller.abort();
        controller = new AbortController();
        messages.length = 0;
        last = 0n;
        draw();
        void watch();
      }
      seated = sits;
      room.textContent = !apart
        ? ""
        : v.viewerSeat === undefined
          ? "You are watching: you chat with the other spectators (the players do not see it)"
          : "Spectators chat apart: you see the players' room";
    },
    stop(): void {
      stopped = true;
      controller.abort();
    },
  };
}

/** The new-table option: spectators chat in a room of their own. */
export function chatOptions(): { fields: Node[]; config(): { separateSpectatorChat: boolean } } {
  const apart = h("input", { id: "new-spectator-chat", type: "checkbox" });
  return {
    fields: [h("label", { for: "new-spectator-chat" }, "Spectators chat apart"), apart],
    config: () => ({ separateSpectatorChat: apart.checked }),
  };
}
