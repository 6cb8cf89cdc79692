"""Code shared by the services: pure domain (poker), persistence (eventstore), bootstrap
(platform)."""
