"""The service: Redis event store, the one write path, the HTTP API, configuration, CLI."""
