"""AI use cases (to come): choose an action for a bot from exactly what a seated player sees
(its PlayerView and LegalActions) at the requested difficulty.

Not implemented in this release: Decide answers UNIMPLEMENTED.
"""

from __future__ import annotations

#: Why the methods answer UNIMPLEMENTED, for the status message.
NOT_YET = "it arrives with the bots (a later issue)"
