"""REST routers: thin. They parse, call a service, and shape the envelope."""
