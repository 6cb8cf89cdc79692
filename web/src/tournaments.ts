// Tournaments (docs/web.md, "Tournaments"): the list (register, unregister, open one), and a
// tournament as it runs - its clock (level, blinds and ante, what changes next, counting down),
// the players left with the average and largest stack, the prize pool and the payouts, every
// entrant's standing, the player's seat - followed through WatchTournament. "My table" opens the
// player's table; while it is open a move opens the new table by itself, with a line saying from
// where to where.
import type { TournamentSummary } from "./gen/holdem/tournament/v1/tournament_pb";
import type { TournamentUpdate } from "./gen/holdem/gateway/v1/gateway_pb";
import { gateway, key, reason, session } from "./api";
import { button, h, mount } from "./dom";
import { tableScreen } from "./table";

/** Level, blinds and ante, and what changes next in how many seconds (``left``). */
export function clockText(t: TournamentSummary, left: number): string {
  const c = t.clock;
  if (!c) return `${t.status}: ${t.entrants}/${t.maxEntrants} registered`;
  let text = `Level ${c.level} · blinds ${c.smallBlind}/${c.bigBlind}`;
  if (c.ante) text += ` ante ${c.ante}`;
  if (c.onBreak) text += " · on break";
  if (c.handForHand) text += " · hand for hand";
  if (c.nextChange && left >= 0) text += ` · ${c.nextChange} in ${Math.max(0, Math.floor(left))} s`;
  return text;
}

function payoutsText(t: TournamentSummary): string {
  const prizes = t.prizes.map((p, i) => `${i + 1}: ${p}`).join(", ");
  return `Prize pool ${t.prizePool} · payouts ${prizes || "-"}`;
}

export function tournamentsScreen(back: () => void): void {
  const status = h("p", { role: "status", class: "status" });
  const list = h("tbody", {});

  async function enter(tournamentId: string, register: boolean): Promise<void> {
    try {
      if (register) {
        await gateway.registerTournament({ tournamentId, idempotencyKey: key() });
        status.textContent = `Registered for ${tournamentId}`;
      } else {
        const reply = await gateway.unregisterTournament({ tournamentId, idempotencyKey: key() });
        status.textContent = `Unregistered: ${reply.refund} chips back`;
      }
    } catch (error) {
      status.textContent = reason(error);
    }
    await refresh();
  }

  function row(t: TournamentSummary): HTMLTableRowElement {
    const open = t.status === "registering";
    return h(
      "tr",
      { "data-tournament": t.tournamentId },
      h("td", {}, t.name || t.tournamentId),
      h("td", {}, t.status),
      h("td", {}, `${t.entrants}/${t.maxEntrants}`),
      h("td", {}, String(t.buyIn)),
      h("td", {}, t.clock ? `Level ${t.clock.level}` : "-"),
      h(
        "td",
        {},
        open && button("Register", () => void enter(t.tournamentId, true)),
        open && button("Unregister", () => void enter(t.tournamentId, false)),
        button("Open", () => tournamentScreen(t.tournamentId, () => tournamentsScreen(back))),
      ),
    );
  }

  async function refresh(): Promise<void> {
    try {
      list.replaceChildren(...(await gateway.listTournaments({})).tournaments.map(row));
    } catch (error) {
      status.textContent = reason(error);
    }
  }

  mount(
    h(
      "section",
      { class: "lobby tournaments" },
      h("header", {}, h("h1", {}, "Tournaments"), button("Refresh", refresh), button("Tables", back)),
      h(
        "table",
        { class: "tables" },
        h(
          "thead",
          {},
          h("tr", {}, ...["Tournament", "Status", "Entrants", "Buy-in", "Level", ""].map((t) => h("th", {}, t))),
        ),
        list,
      ),
      status,
    ),
  );
  void refresh();
}

export function tournamentScreen(tournamentId: string, back: () => void): void {
  const me = session();
  const controller = new AbortController();
  let last: TournamentUpdate | null = null;
  let receivedAt = 0;
  let table = ""; // the player's table as the stream last said
  let closeTable: (() => void) | null = null; // the open table screen's, while following it

  const title = h("h1", {});
  const clock = h("p", { class: "clock", id: "t-clock" });
  const field = h("p", { id: "t-field" });
  const payouts = h("p", { id: "t-payouts" });
  const mine = h("p", { id: "t-me" });
  const standings = h("tbody", { id: "t-standings" });
  const status = h("p", { role: "status", class: "status" });
  const screen = h(
    "section",
    { class: "lobby tournament" },
    h(
      "header",
      {},
      title,
      button("My table", () => openTable(), { id: "t-table" }),
      button("Tournaments", leave),
    ),
    clock,
    field,
    payouts,
    mine,
    h(
      "table",
      { class: "tables" },
      h("thead", {}, h("tr", {}, ...["Player", "Stack", "Table / place"].map((t) => h("th", {}, t)))),
      standings,
    ),
    status,
  );

  function render(): void {
    if (!last?.tournament) return;
    const t = last.tournament;
    const left = (t.clock?.secondsLeft ?? -1) - (Date.now() - receivedAt) / 1000;
    title.textContent = `${t.name || t.tournamentId} (${t.status})`;
    clock.textContent = clockText(t, left);
    field.textContent = `${t.playersLeft} of ${t.entrants} left · average ${t.averageStack} · largest ${t.largestStack}`;
    payouts.textContent = payoutsText(t);
    const m = last.me;
    if (!m?.registered) mine.textContent = "You are not registered";
    else if (m.place) mine.textContent = `You finished ${m.place}${m.prize ? `, prize ${m.prize}` : ""}`;
    else if (m.tableId) mine.textContent = `You: table ${m.tableId}, seat ${m.seat + 1}, stack ${m.stack}`;
    else mine.textContent = `You are registered (stack ${m.stack})`;
  }

  async function refreshStandings(): Promise<void> {
    try {
      const t = (await gateway.getTournament({ tournamentId })).tournament;
      standings.replaceChildren(
        ...(t?.standings ?? []).map((s) =>
          h(
            "tr",
            { "data-player": s.playerId, class: s.playerId === me?.playerId ? "me" : undefined },
            h("td", {}, s.playerId + (s.isBot ? " (AI)" : "")),
            h("td", {}, String(s.stack)),
            h(
              "td",
              {},
              s.tableId
                ? `table ${s.tableId} seat ${s.seat + 1}`
                : s.place
                  ? `place ${s.place}${s.prize ? ` prize ${s.prize}` : ""}`
                  : "",
            ),
          ),
        ),
      );
    } catch (error) {
      status.textContent = reason(error);
    }
  }

  function openTable(moved = ""): void {
    if (!table) {
      status.textContent = "You have no table now";
      return;
    }
    closeTable?.();
    closeTable = tableScreen(table, false, 0n, () => {
      closeTable = null;
      mount(screen);
    });
    if (moved) {
      const note = h("p", { role: "status", class: "status moved", id: "t-moved" }, moved);
      document.getElementById("app")?.prepend(note);
    }
  }

  function leave(): void {
    controller.abort();
    clearInterval(ticker);
    back();
  }

  async function follow(): Promise<void> {
    try {
      for await (const update of gateway.watchTournament({ tournamentId }, { signal: controller.signal })) {
        last = update;
        receivedAt = Date.now();
        const now = update.me?.tableId ?? "";
        const from = update.me?.movedFromTableId ?? "";
        const moved = now !== table && table !== "" && now !== "";
        table = now;
        render();
        void refreshStandings();
        if (moved && closeTable) openTable(`Moved from table ${from || "?"} to table ${now}`);
      }
    } catch (error) {
      if (!controller.signal.aborted) status.textContent = reason(error);
    }
  }

  const ticker = setInterval(render, 1000);
  mount(screen);
  void follow();
}
