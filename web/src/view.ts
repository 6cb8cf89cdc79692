// Reading a PlayerView, as libs/client/view.py does for Python clients: whose turn, the showdown
// choice, the pot, and the bet sizes offered (min, half pot, pot, all-in), within legal bounds.
import type { PlayerView, SeatView } from "./gen/holdem/common/v1/common_pb";

export function isMyTurn(v: PlayerView): boolean {
  return v.viewerSeat !== undefined && v.actingSeat !== undefined && v.viewerSeat === v.actingSeat;
}

export function isShowdownTurn(v: PlayerView): boolean {
  return isMyTurn(v) && v.showdown !== undefined;
}

export function canMuck(v: PlayerView): boolean {
  return isShowdownTurn(v) && (v.showdown?.canMuck ?? false);
}

export function mySeat(v: PlayerView): SeatView | undefined {
  return v.viewerSeat === undefined ? undefined : v.seats.find((s) => s.seat === v.viewerSeat);
}

export function potTotal(v: PlayerView): bigint {
  if (v.pots.length) return v.pots.reduce((sum, p) => sum + p.amount, 0n);
  return v.seats.reduce((sum, s) => sum + s.committed, 0n);
}

export interface Sizes {
  min: bigint;
  half: bigint;
  pot: bigint;
  allIn: bigint;
}

/** The "to" amounts of the presets; null when no bet or raise is allowed. A pot-sized raise
 * calls first, then raises by the pot as it would be after the call. */
export function betSizes(v: PlayerView): Sizes | null {
  const legal = v.legalActions;
  if (isShowdownTurn(v) || !isMyTurn(v) || !legal || !legal.canBetOrRaise) return null;
  const lo = legal.minRaiseTo;
  const hi = legal.maxRaiseTo;
  const committed = mySeat(v)?.committed ?? 0n;
  const high = v.seats.reduce((m, s) => (s.committed > m ? s.committed : m), 0n);
  const call = high > committed ? high - committed : 0n;
  const afterCall = potTotal(v) + call;
  const clamp = (x: bigint) => (x < lo ? lo : x > hi ? hi : x);
  return { min: lo, half: clamp(high + afterCall / 2n), pot: clamp(high + afterCall), allIn: hi };
}
