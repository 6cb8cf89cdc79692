"""How often one sender may post: at most ``messages`` in any ``window_seconds``, and never the
same text twice within ``repeat_seconds`` (flooding). Pure: the caller passes the time; a
refusal is RESOURCE_EXHAUSTED with the wait in ``retry_after_ms``. ``FloodGuard`` remembers the
senders it saw last (at most ``max_senders``; the oldest are forgotten first)."""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

from libs.errors import ResourceExhausted

CHAT_TOO_FAST = "CHAT_TOO_FAST"
CHAT_REPEATED = "CHAT_REPEATED"


@dataclass(frozen=True)
class FloodRules:
    messages: int = 5
    window_seconds: float = 10.0
    repeat_seconds: float = 30.0

    def __post_init__(self) -> None:
        if self.messages < 1 or self.window_seconds <= 0 or self.repeat_seconds < 0:
            raise ValueError("flood rules need messages >= 1, window > 0 and repeat >= 0")


class FloodGuard:
    def __init__(self, rules: FloodRules, max_senders: int = 100_000) -> None:
        self.rules = rules
        self.max_senders = max_senders
        # sender -> (time, text) of their recent messages, oldest first
        self._sent: OrderedDict[str, deque[tuple[float, str]]] = OrderedDict()

    def check(self, sender: str, text: str, now: float) -> None:
        """Refuse ``sender``'s ``text`` at ``now`` if it floods; changes nothing."""
        rules = self.rules
        recent = self._sent.get(sender, deque())
        for at, said in recent:
            if said.casefold() == text.casefold() and now - at < rules.repeat_seconds:
                wait = rules.repeat_seconds - (now - at)
                raise ResourceExhausted(
                    CHAT_REPEATED,
                    "the same message again so soon is flooding: say something else",
                    retry_after_ms=_ms(wait),
                )
        inside = [at for at, _ in recent if now - at < rules.window_seconds]
        if len(inside) >= rules.messages:
            wait = rules.window_seconds - (now - inside[-rules.messages])
            raise ResourceExhausted(
                CHAT_TOO_FAST,
                f"at most {rules.messages} chat messages in {rules.window_seconds:g} s: "
                f"retry in {_ms(wait)} ms",
                retry_after_ms=_ms(wait),
            )

    def record(self, sender: str, text: str, now: float) -> None:
        """``sender`` posted ``text`` at ``now``."""
        recent = self._sent.pop(sender, None) or deque()
        keep = max(self.rules.window_seconds, self.rules.repeat_seconds)
        while recent and now - recent[0][0] >= keep:
            recent.popleft()
        recent.append((now, text))
        self._sent[sender] = recent
        while len(self._sent) > self.max_senders:
            self._sent.popitem(last=False)


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000) + 1)
