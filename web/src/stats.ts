// A seat's statistics and the caller's private note about that player: click a seat at the table.
// The numbers are the gateway's (GetPlayerStats), counted only from hands the caller was dealt
// into, from what the table saw (docs/stats.md); the note is the caller's own, seen by nobody
// else, written and deleted here (SetPlayerNote, DeletePlayerNote).
import type { GetPlayerStatsResponse, PlayerStats } from "./gen/holdem/gateway/v1/gateway_pb";
import { gateway, key, reason, session } from "./api";
import { button, h } from "./dom";

export interface SeatPlayer {
  playerId: string;
  name: string;
}

const NOTE_CHARS = 1000;

function percent(value: number | undefined): string {
  return value === undefined ? "–" : `${Math.round(value * 100)}%`;
}

function rows(s: PlayerStats): [string, string][] {
  return [
    ["Hands", String(s.hands)],
    ["VPIP", percent(s.vpip)],
    ["PFR", percent(s.pfr)],
    ["3-bet", `${percent(s.threeBet)} (${s.threeBets}/${s.threeBetChances})`],
    ["Went to showdown", percent(s.wentToShowdown)],
    ["Won at showdown", percent(s.wonAtShowdown)],
    ["Aggression factor", s.aggressionFactor === undefined ? "–" : s.aggressionFactor.toFixed(1)],
    ["Aggression frequency", percent(s.aggressionFrequency)],
  ];
}

/** The panel; clicking a seat of ``seats`` (elements with ``data-seat``) shows that seat's
 * player, looked up by ``playerAt``: over every table, or at ``tableId`` only. */
export function statsPanel(
  seats: HTMLElement,
  playerAt: (seat: number) => SeatPlayer | undefined,
  tableId: string,
): HTMLElement {
  const heading = h("h3", { id: "stats-title" });
  const hereOnly = h("input", { type: "checkbox", id: "stats-here" });
  hereOnly.addEventListener("change", () => {
    if (shown) void open(shown);
  });
  const table = h("dl", { class: "stats", id: "stats" });
  const note = h("input", {
    type: "text",
    id: "note",
    "aria-label": "Your note",
    maxlength: NOTE_CHARS,
    placeholder: "A private note: only you see it",
  });
  const noteStatus = h("p", { class: "status", id: "note-status", role: "status" });
  const noteRow = h(
    "div",
    { class: "row note" },
    note,
    button("Save note", () => void save()),
    button("Delete note", () => void remove()),
  );
  const panel = h(
    "section",
    { class: "stats-panel", id: "stats-panel", hidden: true },
    heading,
    h("label", {}, hereOnly, " This table only"),
    table,
    noteRow,
    noteStatus,
  );
  let shown: SeatPlayer | null = null;

  // Typed into the note since its player was opened: a fresh read of the same player's
  // statistics (the "This table only" box) must not wipe what is being written.
  let edited = false;
  note.addEventListener("input", () => {
    edited = true;
  });

  function draw(answer: GetPlayerStatsResponse): void {
    const s = answer.stats;
    table.replaceChildren(...(s ? rows(s) : []).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
    if (!edited) note.value = answer.note?.text ?? "";
  }

  async function open(player: SeatPlayer): Promise<void> {
    if (player.playerId !== shown?.playerId) edited = false; // another player's note
    shown = player;
    panel.hidden = false;
    panel.scrollIntoView({ block: "nearest" });
    heading.textContent = `${player.name}: statistics from your hands`;
    noteStatus.textContent = "";
    // no note about yourself (style, not the hidden attribute: .row sets display)
    noteRow.style.display = player.playerId === session()?.playerId ? "none" : "";
    try {
      const at = hereOnly.checked ? tableId : "";
      draw(await gateway.getPlayerStats({ playerId: player.playerId, tableId: at }));
    } catch (error) {
      table.replaceChildren();
      noteStatus.textContent = reason(error);
    }
  }

  async function save(): Promise<void> {
    if (!shown) return;
    noteStatus.textContent = ""; // this click's answer, not the last one's
    try {
      const answer = await gateway.setPlayerNote({
        playerId: shown.playerId,
        text: note.value,
        idempotencyKey: key(),
      });
      note.value = answer.note?.text ?? note.value;
      edited = false;
      noteStatus.textContent = "Note saved";
    } catch (error) {
      noteStatus.textContent = reason(error);
    }
  }

  async function remove(): Promise<void> {
    if (!shown) return;
    noteStatus.textContent = ""; // this click's answer, not the last one's
    try {
      await gateway.deletePlayerNote({ playerId: shown.playerId, idempotencyKey: key() });
      note.value = "";
      edited = false;
      noteStatus.textContent = "Note deleted";
    } catch (error) {
      noteStatus.textContent = reason(error);
    }
  }

  seats.addEventListener("click", (event) => {
    const seat = (event.target as Element).closest<HTMLElement>("[data-seat]")?.dataset.seat;
    const player = seat === undefined ? undefined : playerAt(Number(seat));
    if (player) void open(player);
  });
  return panel;
}
