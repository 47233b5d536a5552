"""HTTP plumbing under the routes: the outer ASGI layer, the fast lane, idempotency keys, body
and header checks, the error envelope, request dependencies, health and the OpenAPI document."""
