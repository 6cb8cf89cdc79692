// The lobby: tables (variant, structure, stakes, seats, players) with filters, a new table with AI
// opponents at their levels, joining or watching one, and the wallet with its ledger.
import {
  BettingStructure,
  BotDifficulty,
  type TableSummary,
  TableStatus,
  Variant,
} from "./gen/holdem/common/v1/common_pb";
import { gateway, reason } from "./api";
import { bombOptions } from "./bomb";
import { FormError, whole } from "./numbers";
import { button, h, mount } from "./dom";
import { chatOptions, chatPanel } from "./chat";
import { privateJoinPanel, privateOptions } from "./private";
import { runItOptions } from "./runit";
import type { Entry } from "./waitlist";

const PAGE_SIZE = 50;

export const VARIANTS: Record<number, string> = {
  [Variant.HOLDEM]: "Hold'em",
  [Variant.OMAHA]: "Omaha",
  [Variant.OMAHA_HI_LO]: "Omaha Hi-Lo",
};
export const STRUCTURES: Record<number, string> = {
  [BettingStructure.NO_LIMIT]: "No limit",
  [BettingStructure.POT_LIMIT]: "Pot limit",
  [BettingStructure.FIXED_LIMIT]: "Fixed limit",
};

function select(id: string, label: string, options: Record<number, string>, any: boolean) {
  const el = h("select", { id });
  if (any) el.append(h("option", { value: "0" }, "Any"));
  for (const [value, text] of Object.entries(options)) el.append(h("option", { value }, text));
  return [h("label", { for: id }, label), el] as const;
}

export interface LobbyActions {
  open(tableId: string, join: boolean, buyIn: bigint, entry?: Entry): void;
  signOut(): void;
  tournaments(): void;
}

export function lobbyScreen(lobbyActions: LobbyActions): void {
  const chat = chatPanel(""); // the lobby's chat: its stream ends when a table opens
  const actions: LobbyActions = {
    ...lobbyActions,
    open(tableId, join, buyIn, entry) {
      chat.stop();
      lobbyActions.open(tableId, join, buyIn, entry);
    },
    signOut() {
      chat.stop();
      lobbyActions.signOut();
    },
  };
  const privacy = privateOptions((tableId, buyIn, entry) => actions.open(tableId, true, buyIn, entry));
  const runIt = runItOptions();
  const chatOption = chatOptions();
  const invite = h("div", {});
  const status = h("p", { role: "status", class: "status" });
  const list = h("tbody", {});
  const wallet = h("p", { class: "wallet" });
  const ledger = h("ol", { class: "ledger" });
  const [variantLabel, variant] = select("filter-variant", "Variant", VARIANTS, true);
  const [structureLabel, structure] = select("filter-structure", "Betting", STRUCTURES, true);
  const [newVariantLabel, newVariant] = select("new-variant", "Variant", VARIANTS, false);
  const [newStructureLabel, newStructure] = select("new-structure", "Betting", STRUCTURES, false);
  const seats = h("input", { id: "new-seats", type: "number", min: 2, max: 10, value: 6 });
  const ais = h("input", { id: "new-ais", type: "number", min: 0, max: 9, value: 5 });
  const level = h("select", { id: "new-level" });
  for (const [value, text] of [
    [BotDifficulty.EASY, "Easy"],
    [BotDifficulty.NORMAL, "Normal"],
    [BotDifficulty.HARD, "Hard"],
  ] as const) {
    level.append(h("option", { value: String(value) }, text));
  }
  level.value = String(BotDifficulty.NORMAL);
  const bigBlind = h("input", { id: "new-bb", type: "number", min: 2, value: 2 });
  const extras = bombOptions(); // the straddle and bomb pots

  function row(t: TableSummary): HTMLTableRowElement {
    const c = t.config!;
    const stakes =
      c.bettingStructure === BettingStructure.FIXED_LIMIT
        ? `${c.bigBlind}/${c.bigBlind * 2n}`
        : `${c.smallBlind}/${c.bigBlind}`;
    const open = t.status === TableStatus.OPEN;
    return h(
      "tr",
      { "data-table": t.tableId },
      h("td", {}, t.name || t.tableId),
      h("td", {}, VARIANTS[c.variant] ?? "?"),
      h("td", {}, STRUCTURES[c.bettingStructure] ?? "?"),
      h("td", {}, stakes),
      h("td", {}, `${t.seatedPlayers}/${c.maxSeats}`),
      h(
        "td",
        {},
        open && button("Join", () => actions.open(t.tableId, true, c.maxBuyIn)),
        button("Watch", () => actions.open(t.tableId, false, 0n)),
      ),
    );
  }

  // Pages of PAGE_SIZE tables, newest first (a table just opened is on the first): the token of
  // the page shown, those of the pages before it (for "Newer") and of the next one ("Older").
  let shown = "";
  const before: string[] = [];
  let following = "";
  const newer = button("Newer", () => void turn(before.pop() ?? ""), { id: "tables-newer" });
  const older = button("Older", () => void turn(following, shown), { id: "tables-older" });
  const pageLabel = h("span", { class: "page" }, "");

  async function turn(token: string, from?: string): Promise<void> {
    if (from !== undefined) before.push(from);
    shown = token;
    await refresh();
  }

  function firstPage(): Promise<void> {
    before.length = 0;
    shown = "";
    return refresh();
  }

  async function refresh(): Promise<void> {
    try {
      const reply = await gateway.listTables({
        variant: Number(variant.value),
        bettingStructure: Number(structure.value),
        pageSize: PAGE_SIZE,
        pageToken: shown,
        newestFirst: true,
      });
      list.replaceChildren(...reply.tables.map(row));
      following = reply.nextPageToken;
      newer.disabled = before.length === 0;
      older.disabled = following === "";
      const first = before.length * PAGE_SIZE;
      pageLabel.textContent = reply.tables.length
        ? `Tables ${first + 1}-${first + reply.tables.length}, newest first`
        : "No tables";
      const w = (await gateway.getWallet({})).wallet;
      wallet.textContent = w ? `Wallet: ${w.balance} chips (${w.onTables} on tables)` : "";
      const entries = (await gateway.listLedger({ pageSize: 20 })).entries;
      ledger.replaceChildren(
        ...entries.map((e) => h("li", {}, `${e.amount > 0n ? "+" : ""}${e.amount} → ${e.balanceAfter}`)),
      );
    } catch (error) {
      status.textContent = reason(error);
    }
  }

  async function create(): Promise<void> {
    const fixed = Number(newStructure.value) === BettingStructure.FIXED_LIMIT;
    try {
      const size = whole(seats, "Seats", 2n, 10n);
      const bb = whole(bigBlind, "Big blind", 2n, undefined, 2n);
      const opponents = Number(whole(ais, "AI opponents", 0n, size - 1n, 0n));
      const reply = await gateway.createTable({
        name: `${VARIANTS[Number(newVariant.value)]} table`,
        config: {
          variant: Number(newVariant.value),
          bettingStructure: Number(newStructure.value),
          maxSeats: Number(size),
          smallBlind: fixed ? 0n : bb / 2n || 1n,
          bigBlind: bb,
          ...extras.config(),
          ...runIt.config(),
          ...chatOption.config(),
        },
        ...privacy.request(),
        bots: Array.from({ length: opponents }, () => Number(level.value)),
      });
      status.textContent = `Created ${reply.table?.tableId}`;
      invite.replaceChildren(privacy.created(reply) ?? "");
      await firstPage(); // newest first: the new table heads the first page
    } catch (error) {
      status.textContent = error instanceof FormError ? error.message : reason(error);
    }
  }

  variant.addEventListener("change", firstPage);
  structure.addEventListener("change", firstPage);
  mount(
    h(
      "section",
      { class: "lobby" },
      h(
        "header",
        {},
        h("h1", {}, "Lobby"),
        wallet,
        button("Tournaments", actions.tournaments),
        button("Sign out", actions.signOut),
      ),
      h(
        "div",
        { class: "panel filters" },
        variantLabel,
        variant,
        structureLabel,
        structure,
        button("Refresh", refresh),
      ),
      h(
        "table",
        { class: "tables" },
        h(
          "thead",
          {},
          h("tr", {}, ...["Table", "Variant", "Betting", "Stakes", "Players", ""].map((t) => h("th", {}, t))),
        ),
        list,
      ),
      h("div", { class: "panel pages" }, newer, pageLabel, older),
      h(
        "div",
        { class: "panel create" },
        h("h2", {}, "New table"),
        newVariantLabel,
        newVariant,
        newStructureLabel,
        newStructure,
        h("label", { for: "new-seats" }, "Seats"),
        seats,
        h("label", { for: "new-bb" }, "Big blind"),
        bigBlind,
        h("label", { for: "new-ais" }, "AI opponents"),
        ais,
        h("label", { for: "new-level" }, "AI level"),
        level,
        ...extras.fields,
        ...runIt.fields,
        ...chatOption.fields,
        ...privacy.fields,
        button("Create table", create),
      ),
      invite,
      privateJoinPanel((tableId, buyIn, entry) => actions.open(tableId, true, buyIn, entry)),
      chat.el,
      h("details", {}, h("summary", {}, "Ledger"), ledger),
      status,
    ),
  );
  void refresh();
}
