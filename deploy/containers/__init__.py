"""Tools for the container images and docker compose: which engine and compose binary
(``engine``), the images and their stand-in bases (``images``), bringing the stack up and down
(``compose``). ``python -m deploy.containers images|up|down`` is what make's targets run."""
