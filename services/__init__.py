"""The seven gRPC services: gateway, lobby, table, dealer, evaluator, ai, tournament."""
