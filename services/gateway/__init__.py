"""Gateway service: the client-facing gRPC API (holdem.gateway.v1). Authenticates callers with the
lobby's tokens and forwards to the internal services."""
