"""The privacy spy's statistics part (docs/stats.md): after a table's run, what the gateway
answers each person about every player they met is exactly what that person's own projection
of the table's hands gives (libs.history for that viewer, libs.stats): nothing from a hand they
were not dealt into, nothing a hidden card could move."""

from __future__ import annotations

from libs.client import GatewayClient
from libs.stats import Counts
from tests.conditions import wait_until
from tests.gateway.stats_steps import counts_of, read_table_commits, seen_by


async def stats_problems(nats_url: str, table_id: str, people: list[GatewayClient]) -> list[str]:
    commits = await read_table_commits(nats_url, table_id)
    problems = []
    for client in people:
        me = client.player_id
        truth = seen_by(commits, me)
        own = truth.get(me, Counts()).hands

        async def counted(client: GatewayClient = client, own: int = own) -> bool:
            return (await client.player_stats()).stats.hands >= own

        await wait_until(counted, f"{me}'s hands counted", timeout=60)
        for player, numbers in truth.items():
            got = counts_of((await client.player_stats(player)).stats)
            if got != numbers:
                problems.append(f"{me} about {player} at {table_id}: {got} != {numbers}")
    return problems
