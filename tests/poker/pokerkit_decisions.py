"""Each decision of the differential play compared (``DecidingDuel``): the actor, fold / check /
call, the call amount, whether a raise is allowed and its bounds, in both engines and against
the rules' betting round; the documented divergences translated and counted, nothing else; one
chip outside the bounds refused by both; then a random action legal in both, played in both.
"""

from __future__ import annotations

from libs.poker import (
    BetOrRaise,
    BettingStructure,
    Call,
    Check,
    Fold,
    IllegalAction,
    LegalActions,
    PokerError,
    legal_actions,
    step,
)
from tests.poker.pokerkit_duel import Duel, Options
from tests.poker.reference_betting import FIXED_LIMIT_BETS

BOUNDS_CHECK_RATE = 0.3  # share of decisions where min_to - 1 and max_to + 1 are tried in both


PK_ACTED_MESSAGE = "The player already acted and hence cannot raise"


class DecidingDuel(Duel):
    """A duel that compares and plays each decision (``decision``)."""

    def _our_denial(self, p: int) -> str:
        s = self.ours
        try:
            step(s, BetOrRaise(p, s.stacks[p] + s.bets[p]))
        except IllegalAction as exc:
            return exc.code
        return ""

    def _pk_denial(self) -> str:
        try:
            self.theirs.verify_completion_betting_or_raising_to()
        except ValueError as exc:
            return str(exc)
        return ""

    def _decision(self) -> None:
        s = self.ours
        t = self.theirs
        ours = legal_actions(s)
        if ours is None:
            raise self.fail("betting phase without legal actions")
        p = ours.player
        if t.actor_index != p:
            raise self.fail(f"actor: ours p{p + 1}, PokerKit {t.actor_index}")
        if list(t.stacks) != s.stacks or list(t.bets) != s.bets:
            raise self.fail(
                f"before p{p + 1} acts: stacks ours {s.stacks} PokerKit {list(t.stacks)}; "
                f"bets ours {s.bets} PokerKit {list(t.bets)}"
            )
        self.result.decisions += 1
        theirs = self._pk_options()
        options = self._agree(p, ours, theirs)
        if self.rng.random() < BOUNDS_CHECK_RATE:
            self._check_bounds_rejected(p, options)
        self._act(p, options)

    def _pk_options(self) -> Options:
        t = self.theirs
        amount = t.checking_or_calling_amount
        min_to = t.min_completion_betting_or_raising_to_amount
        max_to = t.max_completion_betting_or_raising_to_amount if min_to is not None else None
        return Options(
            can_fold=t.can_fold(),
            can_check=amount == 0,
            can_call=amount is not None and amount > 0,
            call_amount=amount or 0,
            can_raise=min_to is not None,
            min_to=min_to or 0,
            max_to=max_to or 0,
        )

    def _reference_bounds(self, p: int) -> tuple[int, int]:
        """RULES.md's raise-to bounds for ``p`` now, from the round's actions and PokerKit's
        chip counts (equal to ours: checked before every decision)."""
        t = self.theirs
        pot = sum(self.stacks) - sum(t.stacks)
        return self.round.bounds(p, t.stacks[p], pot)

    def _check_rules(self, p: int, mine: Options) -> None:
        """Our engine against RULES.md, computed from the action history alone: a raise it
        offers must be allowed by the reopening rule and have exactly the reference bounds; a
        raise it refuses for the reopening rule or the fixed-limit cap must be refused by them."""
        ref = self.round
        if mine.can_raise:
            if not ref.reopened_for(p):
                raise self.fail(
                    f"ours lets p{p + 1} raise, but only short all-ins ({ref.owed(p)} in all, "
                    f"a full raise is {ref.full}) followed their action"
                )
            expected = self._reference_bounds(p)
            if (mine.min_to, mine.max_to) != expected:
                raise self.fail(
                    f"ours lets p{p + 1} raise to {mine.min_to}..{mine.max_to}; the rules say "
                    f"{expected[0]}..{expected[1]}"
                )
            return
        code = self._our_denial(p)
        if code == "ACTION_NOT_REOPENED" and ref.reopened_for(p):
            raise self.fail(f"ours refuses p{p + 1} a raise as not reopened, but it is reopened")
        if code == "CAP_REACHED" and not (
            self.config.structure is BettingStructure.FIXED_LIMIT
            and ref.bets_made >= FIXED_LIMIT_BETS
        ):
            raise self.fail(f"ours says the cap is reached after {ref.bets_made} bets")

    def _agree(self, p: int, ours: LegalActions, theirs: Options) -> Options:
        """Compare, translating only the documented divergences; returns what both allow.

        A translation fires only when the rule it stands for, computed from the action history
        (``BettingRound``), explains both sides exactly: our refusal (or permission) is what
        RULES.md says, and PokerKit's answer is what its documented behaviour gives.
        """
        mine = Options(
            ours.can_fold,
            ours.can_check,
            ours.can_call,
            ours.call_amount,
            ours.can_raise,
            ours.min_to,
            ours.max_to,
        )
        self._check_rules(p, mine)
        ref = self.round
        street = ref.street
        can_raise = mine.can_raise
        if mine.can_raise != theirs.can_raise:
            # acted since the last full raise and faces only short all-ins since (RULES.md)
            not_reopened = not ref.reopened_for(p)
            if theirs.can_raise:  # PokerKit allows a raise we refuse
                code = self._our_denial(p)
                if (
                    code == "CAP_REACHED"
                    and street == 0
                    and self.config.structure is BettingStructure.FIXED_LIMIT
                    and ref.bets_made == FIXED_LIMIT_BETS  # the big blind and three raises
                    and self.theirs.completion_betting_or_raising_count == FIXED_LIMIT_BETS - 1
                ):
                    self.translate("cap_preflop")
                elif (
                    code == "ACTION_NOT_REOPENED"
                    and not_reopened
                    and ref.counted_full_by_pokerkit_since(p)
                    and street == 0
                ):
                    self.translate("short_all_in_preflop")
                elif (
                    code == "ACTION_NOT_REOPENED"
                    and not_reopened
                    and ref.counted_full_by_pokerkit_since(p)
                    and ref.opened_short
                ):
                    self.translate("short_all_in_bet")
                else:
                    raise self.fail(
                        f"p{p + 1} may raise in PokerKit (to {theirs.min_to}..{theirs.max_to}) "
                        f"but not in ours ({code}); ours={mine} PokerKit={theirs}"
                    )
            else:  # we allow a raise PokerKit refuses
                reason = self._pk_denial()
                short_since = [r for r in ref.raises_since(p) if not r.full]
                if (
                    reason.startswith(PK_ACTED_MESSAGE)
                    and p in ref.acted  # no full raise since p acted ...
                    and ref.owed(p) >= ref.full  # ... but the short all-ins add up to one
                    and len(short_since) >= 2
                ):
                    # (our bounds were compared with the rules' in _check_rules)
                    self.translate("short_all_in_sum_reset")
                else:
                    raise self.fail(
                        f"p{p + 1} may raise in ours ({mine.min_to}..{mine.max_to}) but not in "
                        f"PokerKit ({reason}); ours={mine} PokerKit={theirs}"
                    )
            can_raise = False
            mine.can_raise = theirs.can_raise = False
            mine.min_to = mine.max_to = theirs.min_to = theirs.max_to = 0
        if mine != theirs:
            raise self.fail(f"legal actions of p{p + 1} differ: ours={mine} PokerKit={theirs}")
        mine.can_raise = can_raise
        return mine

    def _check_bounds_rejected(self, p: int, options: Options) -> None:
        if not options.can_raise:
            return
        for to in (options.min_to - 1, options.max_to + 1):
            try:
                step(self.ours, BetOrRaise(p, to))
            except PokerError:
                pass
            else:
                raise self.fail(
                    f"ours accepts p{p + 1} raising to {to} outside "
                    f"{options.min_to}..{options.max_to}"
                )
            if self.theirs.can_complete_bet_or_raise_to(to):
                raise self.fail(
                    f"PokerKit accepts p{p + 1} raising to {to} outside "
                    f"{options.min_to}..{options.max_to}"
                )

    def _choose(self, options: Options) -> tuple[str, int]:
        rng = self.rng
        if options.can_raise and rng.random() < self.raise_rate:
            low, high = options.min_to, options.max_to
            roll = rng.random()
            if roll < 0.35:
                to = low
            elif roll < 0.65:
                to = high
            else:
                to = rng.randint(low, high)
            return "raise", to
        if options.can_check:
            return "check", 0
        if options.can_fold and rng.random() < self.fold_rate:
            return "fold", 0
        return "call", 0

    def _act(self, p: int, options: Options) -> None:
        s = self.ours
        t = self.theirs
        kind, to = self._choose(options)
        if kind == "raise":
            all_in = to == t.stacks[p] + t.bets[p]
            raised = self.round.record(p, "raise", to)
            assert raised is not None
            if not raised.full and not all_in:
                raise self.fail(f"p{p + 1} raises to {to}, less than a full raise, not all-in")
            if all_in:
                self.result.all_in = True
            short = " (short all-in)" if not raised.full else ""
            self.note(f"p{p + 1} cbr {to}{short}")
            self.pk_do(f"raise to {to}", t.complete_bet_or_raise_to, to)
            self.apply(BetOrRaise(p, to))
        elif kind == "check":
            self.note(f"p{p + 1} cc (check)")
            self.round.record(p, "check")
            self.pk_do("check", t.check_or_call)
            self.apply(Check(p))
        elif kind == "call":
            if options.call_amount == s.stacks[p]:
                self.result.all_in = True
            self.note(f"p{p + 1} cc (call {options.call_amount})")
            self.round.record(p, "call", self.round.bets[p] + options.call_amount)
            self.pk_do("call", t.check_or_call)
            self.apply(Call(p))
        else:
            self.note(f"p{p + 1} f")
            self.round.record(p, "fold")
            self.pk_do("fold", t.fold)
            self.apply(Fold(p))
            self.folded[p] = True
