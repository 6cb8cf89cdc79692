"""The AI's messages in protobuf (``holdem.ai.v1``): how libs.ai's seat views and decisions look
on the wire.

Why a package of its own: libs/ai is pure like libs/poker (no protobuf, no I/O), and these
translations are needed by more than the ai service: the table asks it for its bot seats with a
request built here, and ``holdem arena`` sends the same requests to outside bots. So a request
is built one way only, and a lib never imports a service.

- ``mapping``: the one mapping of each enum (variant, structure, difficulty, street, public move,
  action) and of cards between the wire and libs.ai.
- ``requests``: a seat's view as the ``DecideRequest`` a seated player is shown (its own hole
  cards and nobody else's), and the answer both ways (``DecideResponse`` <-> ``Decision``).
- ``reading``: a request checked and rebuilt as a ``SeatView`` (``read_request``); anything
  inconsistent raises ``InvalidRequest`` with its code (``errors``), INVALID_ARGUMENT.
"""
