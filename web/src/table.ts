// The table: seats around it with stacks, bets and cards, the board, the pots, the button, whose
// turn it is with the clock and time bank, the legal actions with a bet slider and presets,
// show/muck, sit out/in, top up, leave, the running log and the last showdown. Everything shown
// comes from the gateway's stream for this viewer: the page never gets another seat's hidden
// cards. After a dropped connection the stream is resumed from the last sequence, and the page
// checks and says that nothing was missed.
import { create } from "@bufbuild/protobuf";
import {
  ActionType,
  BettingStructure,
  type Card,
  CardSchema,
  type PlayerView,
  SeatStatus,
  Street,
  TableStatus,
} from "./gen/holdem/common/v1/common_pb";
import type { ProjectedCommit } from "./gen/holdem/gateway/v1/gateway_pb";
import { gateway, key, reason, session } from "./api";
import { renderBomb } from "./bomb";
import { cardBack, cardEl, cardText } from "./cards";
import { button, h, mount } from "./dom";
import { historyPanel } from "./history";
import { statsPanel } from "./stats";
import { chatPanel } from "./chat";
import { seatRequestsPanel } from "./private";
import { runItPanel } from "./runit";
import { type Entry, seatPanel } from "./waitlist";
import { seatOptions } from "./seatopts";
import { STRUCTURES, VARIANTS } from "./lobby";
import { betSizes, canMuck, isMyTurn, isShowdownTurn, mySeat, potTotal } from "./view";

const STREETS: Record<number, string> = {
  [Street.PREFLOP]: "Preflop",
  [Street.FLOP]: "Flop",
  [Street.TURN]: "Turn",
  [Street.RIVER]: "River",
  [Street.SHOWDOWN]: "Showdown",
};

/** The board's streets as hand events number them (libs.poker: 1 flop, 2 turn, 3 river). */
const DEALT: Record<number, string> = { 1: "Flop", 2: "Turn", 3: "River" };

function toCard(n: number): Card {
  return create(CardSchema, { rank: (n >> 2) + 2, suit: (n & 3) + 1 });
}

/** The table's screen; the answer stops it (its stream, keys and clock) without going back. */
export function tableScreen(
  tableId: string,
  join: boolean,
  buyIn: bigint,
  back: () => void,
  entry: Entry = {}, // a private table's password or invite code
): () => void {
  const me = session();
  let view: PlayerView | null = null;
  let last = 0n; // the sequence of the last update: the stream resumes after it
  let handSeats: number[] = [];
  let seatsOfHand = ""; // the hand handSeats are of
  let handNumber = 0; // the hand the log is in
  let showdownOf = -1; // the hand whose showdown is on screen: kept until the next one's
  let stopped = false;
  let busy = false;
  const controller = new AbortController();
  const names = new Map<number, string>();
  const logLines: string[] = [];

  const screen = h("section", { class: "table", "data-sequence": "0" });
  const status = h("p", { role: "status", class: "status", id: "status" });
  const connection = h("p", { class: "connection", id: "connection", "aria-live": "polite" });
  const title = h("h1", {});
  const seatsEl = h("ol", { class: "seats", "aria-label": "Seats" });
  const board = h("div", { class: "board", "aria-label": "Board" });
  const pots = h("p", { class: "pots", id: "pots" });
  const turn = h("p", { class: "turn", id: "turn" });
  const actionsEl = h("div", { class: "actions", role: "group", "aria-label": "Actions" });
  const slider = h("input", { type: "range", id: "amount", "aria-label": "Amount", step: 1 });
  const amountText = h("output", { for: "amount", id: "amount-text" });
  const presets = h("div", { class: "presets", role: "group", "aria-label": "Bet sizes" });
  const showdownEl = h("div", { class: "showdown", id: "showdown", "aria-live": "polite" });
  const logEl = h("ol", { class: "log", id: "log" });
  const seatControls = h("div", { class: "row seat-controls" });
  const bombEl = h("div", { class: "row bomb", id: "bomb" });
  slider.addEventListener("input", () => {
    amountText.textContent = slider.value;
    const bet = [...actionsEl.querySelectorAll("button")].find((b) => /^(Bet|Raise) /.test(b.textContent ?? ""));
    if (bet) bet.textContent = `${bet.textContent!.split(" ")[0]} ${slider.value}`;
  });

  function say(text: string): void {
    status.textContent = text;
  }
  const chat = chatPanel(tableId);
  const seating = seatPanel(tableId, buyIn, entry, say);
  const runs = runItPanel(tableId, say);
  const requests = seatRequestsPanel(tableId);

  async function call(what: () => Promise<object>): Promise<void> {
    busy = true; // one action at a time: the buttons wait for its answer
    for (const b of actionsEl.querySelectorAll("button")) b.disabled = true;
    try {
      const reply = (await what()) as { view?: PlayerView };
      if (reply.view && reply.view.sequence >= (view?.sequence ?? 0n)) {
        view = reply.view;
        render();
      }
      say("");
    } catch (error) {
      say(reason(error));
    } finally {
      busy = false;
      render();
    }
  }

  function act(action: ActionType, amount = 0n): void {
    const handId = view?.handId ?? "";
    void call(() => gateway.act({ tableId, handId, action, amount, idempotencyKey: key() }));
  }

  function show(yes: boolean): void {
    const handId = view?.handId ?? "";
    const request = { tableId, handId, idempotencyKey: key() };
    void call(() => (yes ? gateway.show(request) : gateway.muck(request)));
  }

  /** A hand that began before this page watched it (its HandBegan unseen): its positions' seats
   * from the view, as the table numbers them: the seats dealt in, clockwise from the first left
   * of the button, the button last. */
  function learnSeats(v: PlayerView): void {
    if (!v.handId || v.handId === seatsOfHand) return;
    const dealt = v.seats.filter((s) => s.holeCardCount > 0).map((s) => s.seat).sort((a, b) => a - b);
    const button = v.buttonSeat ?? -1;
    handSeats = [...dealt.filter((s) => s > button), ...dealt.filter((s) => s <= button)];
    seatsOfHand = v.handId;
  }

  function name(seat: number | undefined): string {
    if (seat === undefined) return "A player"; // a position the hand does not have
    return names.get(seat) ?? `Seat ${seat + 1}`;
  }

  function renderSeats(v: PlayerView): void {
    seatsEl.replaceChildren(
      ...v.seats.map((s) => {
        if (s.displayName) names.set(s.seat, s.displayName);
        const acting = v.actingSeat === s.seat;
        const folded = s.status === SeatStatus.FOLDED;
        const cards =
          s.holeCards.length > 0
            ? s.holeCards.map(cardEl)
            : Array.from({ length: folded ? 0 : s.holeCardCount }, cardBack);
        return h(
          "li",
          {
            class: `seat seat-${s.seat}${acting ? " acting" : ""}${s.seat === v.viewerSeat ? " mine" : ""}`,
            "data-seat": s.seat,
            "aria-current": acting ? "true" : undefined,
          },
          h("span", { class: "name" }, name(s.seat) + (s.isBot ? " (AI)" : "")),
          v.buttonSeat === s.seat && h("span", { class: "dealer", "aria-label": "button" }, "D"),
          h("span", { class: "stack" }, `${s.stack}`),
          s.committed > 0n && h("span", { class: "bet" }, `bet ${s.committed}`),
          h("span", { class: "cards" }, ...cards),
          s.status === SeatStatus.FOLDED && h("span", { class: "state" }, "folded"),
          s.status === SeatStatus.ALL_IN && h("span", { class: "state" }, "all-in"),
          s.status === SeatStatus.SITTING_OUT && h("span", { class: "state" }, "sitting out"),
        );
      }),
    );
  }

  function renderActions(v: PlayerView): void {
    actionsEl.replaceChildren();
    presets.replaceChildren();
    slider.hidden = amountText.hidden = true;
    if (isShowdownTurn(v)) {
      actionsEl.append(button("Show", () => show(true)));
      if (canMuck(v)) actionsEl.append(button("Muck", () => show(false)));
      return;
    }
    if (!isMyTurn(v) || !v.legalActions) return;
    const legal = v.legalActions;
    if (legal.canFold) actionsEl.append(button("Fold", () => act(ActionType.FOLD)));
    if (legal.canCheck) actionsEl.append(button("Check", () => act(ActionType.CHECK)));
    if (legal.canCall) actionsEl.append(button(`Call ${legal.callAmount}`, () => act(ActionType.CALL)));
    const sizes = betSizes(v);
    if (sizes) {
      const facing = v.seats.some((s) => s.committed > 0n);
      const verb = facing ? "Raise" : "Bet";
      slider.min = String(legal.minRaiseTo);
      slider.max = String(legal.maxRaiseTo);
      const turnKey = `${v.handId}:${v.actions.length}`;
      if (slider.dataset.turn !== turnKey) {
        slider.dataset.turn = turnKey; // a new turn starts at the minimum
        slider.value = String(legal.minRaiseTo);
      }
      amountText.textContent = slider.value;
      slider.hidden = amountText.hidden = legal.minRaiseTo === legal.maxRaiseTo;
      const bet = button(`${verb} ${slider.value}`, () => {
        const amount = BigInt(slider.value);
        if (amount === legal.maxRaiseTo && amount === legal.allInAmount) act(ActionType.ALL_IN);
        else act(facing ? ActionType.RAISE : ActionType.BET, amount);
      });
      actionsEl.append(bet);
      if (v.config?.bettingStructure !== BettingStructure.FIXED_LIMIT) {
        for (const [label, amount] of [
          ["Min", sizes.min],
          ["Half pot", sizes.half],
          ["Pot", sizes.pot],
          ["Max", sizes.allIn],
        ] as const) {
          presets.append(
            button(label, () => {
              slider.value = String(amount);
              slider.dispatchEvent(new Event("input"));
            }),
          );
        }
      }
    }
    if (legal.allInAmount > 0n && legal.canBetOrRaise && legal.maxRaiseTo === legal.allInAmount) {
      actionsEl.append(button(`All-in ${legal.allInAmount}`, () => act(ActionType.ALL_IN)));
    }
  }

  function renderSeatControls(v: PlayerView): void {
    seatControls.replaceChildren();
    const mine = mySeat(v);
    if (!mine) return;
    if (mine.status === SeatStatus.SITTING_OUT) {
      seatControls.append(button("Sit in", () => void call(() => gateway.sitIn({ tableId }))));
    } else {
      seatControls.append(button("Sit out", () => void call(() => gateway.sitOut({ tableId }))));
    }
    seatControls.append(
      button("Top up", () => {
        const amount = (v.config?.maxBuyIn ?? 0n) - mine.stack;
        if (amount > 0n) void call(() => gateway.topUp({ tableId, amount, idempotencyKey: key() }));
      }),
      button("Leave", () => void call(() => gateway.leaveTable({ tableId, idempotencyKey: key() }))),
    );
  }

  function render(): void {
    const v = view;
    if (!v) return;
    const c = v.config;
    title.textContent = c
      ? `${VARIANTS[c.variant]} · ${STRUCTURES[c.bettingStructure]} · ${c.smallBlind}/${c.bigBlind}`
      : tableId;
    renderSeats(v);
    board.replaceChildren(...v.board.map(cardEl));
    pots.textContent = v.handId
      ? `Hand ${v.handNumber} · ${STREETS[v.street] ?? ""} · Pot ${potTotal(v)}` +
        (v.pots.length > 1 && v.seats.some((s) => s.status === SeatStatus.ALL_IN)
          ? ` (main ${v.pots.map((p) => p.amount).join(", side ")})`
          : "")
      : v.tableStatus === TableStatus.CLOSED
        ? "The table is closed"
        : "Waiting for the next hand";
    let clock = "";
    if (v.actionDeadline && v.actingSeat !== undefined) {
      const left = Math.max(0, Math.ceil(Number(v.actionDeadline.seconds) - Date.now() / 1000));
      const bank = isShowdownTurn(v) ? 0 : (v.seats.find((s) => s.seat === v.actingSeat)?.timeBankSeconds ?? 0);
      // once the clock ran out the deadline is the time bank's end: nothing more to add
      clock = v.timeBankRunning ? ` · ${left}s (time bank)` : ` · ${left}s${bank ? ` (+${bank}s bank)` : ""}`;
    }
    turn.textContent =
      v.actingSeat === undefined
        ? ""
        : isShowdownTurn(v)
          ? `Your turn to show${canMuck(v) ? " or muck" : ""}${clock}`
          : isMyTurn(v)
            ? `Your turn${clock}`
            : `${name(v.actingSeat)} to act${clock}`;
    renderActions(v);
    for (const b of actionsEl.querySelectorAll("button")) b.disabled = busy;
    renderSeatControls(v);
    renderBomb(bombEl, v, tableId, (what) => void call(what));
    chat.update(v);
    seating.update(v);
    runs.update(v);
    options.render(v, seatsEl, name);
    screen.dataset.sequence = String(v.sequence);
  }

  // The next hand begins at once after a showdown: its result stays on screen, headed by its hand
  // number, until the next hand's first show or award replaces it.
  function showdownOfThisHand(): void {
    if (showdownOf === handNumber) return;
    showdownOf = handNumber;
    showdownEl.replaceChildren(h("h3", { class: "showdown-hand" }, `Hand ${handNumber}`));
  }

  function log(commit: ProjectedCommit): void {
    const decoder = new TextDecoder();
    for (const event of commit.recorded) {
      const data = JSON.parse(decoder.decode(event.data)) as Record<string, unknown>;
      runs.event(event.type, data, (position) => name(handSeats[position]));
      if (event.type === "HandBegan") {
        handSeats = data.seats as number[];
        seatsOfHand = data.hand_id as string;
        handNumber = data.hand_number as number;
        logLines.push(`Hand ${handNumber} begins`);
      } else if (event.type === "ActionTaken") {
        const seat = handSeats[data.player as number];
        const amount = data.amount ? ` ${String(data.amount)}` : ""; // a check or fold moves no chips
        logLines.push(`${name(seat)}: ${String(data.kind ?? data.action ?? "acts").toLowerCase()}${amount}`);
      } else if (event.type === "StreetDealt") {
        const cards = (data.cards as number[]).map((n) => cardText(toCard(n))).join(" ");
        logLines.push(`${DEALT[data.street as number] ?? "Board"}: ${cards}`);
      } else if (event.type === "HandShown") {
        const seat = handSeats[data.player as number];
        const cards = (data.cards as number[]).map(toCard);
        showdownOfThisHand();
        showdownEl.append(h("p", { class: "shown" }, `${name(seat)} shows `, ...cards.map(cardEl)));
        logLines.push(`${name(seat)} shows`);
      } else if (event.type === "HandMucked") {
        logLines.push(`${name(handSeats[data.player as number])} mucks`);
      } else if (event.type === "PotAwarded") {
        const share = (data.share === "whole" ? "" : ` (${data.share})`) + runs.runLabel(data); // hi-lo, runs
        showdownOfThisHand();
        for (const [position, amount] of data.winners as [number, number][]) {
          const line = `${name(handSeats[position])} wins ${amount}${share}`;
          logLines.push(line);
          showdownEl.append(h("p", { class: "winner" }, line));
        }
      }
    }
    logEl.replaceChildren(...logLines.slice(-12).map((line) => h("li", {}, line)));
  }

  async function watch(): Promise<void> {
    let resumed = false;
    while (!stopped) {
      try {
        for await (const u of gateway.watchTable(
          { tableId, fromSequence: last },
          { signal: controller.signal },
        )) {
          if (u.update.case === "commit") {
            if (last && u.previous !== last) connection.textContent = `Missed updates before ${u.sequence}`;
            else if (resumed) {
              connection.textContent = `Reconnected: resumed after update ${last}, nothing missed`;
              resumed = false;
            }
            log(u.update.value);
          } else if (u.update.case === "snapshot") {
            view = u.update.value;
            learnSeats(view);
            if (resumed) connection.textContent = "Reconnected: the table as it is now";
            resumed = false;
          }
          if (u.view) learnSeats((view = u.view));
          last = u.sequence;
          render();
        }
        if (!stopped) connection.textContent = "The table closed";
        return;
      } catch (error) {
        if (stopped) return;
        connection.textContent = `Connection lost (${reason(error)}): reconnecting…`;
        resumed = true;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  function keys(event: KeyboardEvent): void {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    const v = view;
    if (!v) return;
    const legal = v.legalActions;
    const k = event.key.toLowerCase();
    if (isShowdownTurn(v)) {
      if (k === "s") show(true);
      else if (k === "k" && canMuck(v)) show(false);
    } else if (isMyTurn(v) && legal) {
      if (k === "f" && legal.canFold) act(ActionType.FOLD);
      else if (k === "c") act(legal.canCheck ? ActionType.CHECK : ActionType.CALL);
      else if (k === "r")
        [...actionsEl.querySelectorAll("button")].find((b) => /^(Bet|Raise)/.test(b.textContent ?? ""))?.click();
      else if (k === "a" && legal.canBetOrRaise) act(ActionType.ALL_IN);
    }
  }

  function stop(): void {
    stopped = true;
    controller.abort();
    document.removeEventListener("keydown", keys);
    clearInterval(ticker);
    chat.stop();
    seating.stop();
    requests.stop();
  }

  function leaveScreen(): void {
    stop();
    back();
  }

  const options = seatOptions(tableId, (what) => void call(what));
  const ticker = setInterval(render, 1000);
  document.addEventListener("keydown", keys);
  mount(screen);
  screen.append(
      h("header", {}, title, button("Lobby", leaveScreen)),
      connection,
      seatsEl,
      h("div", { class: "middle" }, board, pots, turn),
      actionsEl,
      h("div", { class: "sizing" }, slider, amountText, presets),
      showdownEl,
      runs.el,
      seatControls,
      bombEl,
      seating.el,
      requests.el,
      options.el,
      h("p", { class: "keys" }, "Keys: f fold · c check/call · r bet/raise · a all-in · s show · k muck"),
      status,
      h("details", { open: true }, h("summary", {}, "Hand log"), logEl),
      chat.el,
      me ? historyPanel(tableId) : "",
      statsPanel(seatsEl, (seat) => {
        const s = view?.seats.find((x) => x.seat === seat);
        return s?.playerId ? { playerId: s.playerId, name: name(seat) } : undefined;
      }, tableId),
  );

  void (async () => {
    if (join) await seating.join(); // or its waiting list, or the creator's approval
    await watch();
  })();
  return stop;
}
