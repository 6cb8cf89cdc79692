"""The six gRPC services: gateway, lobby, table, dealer, evaluator, ai."""
