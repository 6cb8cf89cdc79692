"""Service bootstrap shared by every service: configuration from the environment, structured logs,
the gRPC server (health, reflection, the layers around every method, graceful shutdown), error
mapping and clients.

A service's ``__main__`` calls :func:`libs.platform.server.run_service`; nothing else starts one.
"""
