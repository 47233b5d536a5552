"""``GatewayServer``: each Band peer as an A2A agent over HTTP, on a2a-sdk's own server routes.

Per peer (by slug and by id): its agent card at ``/agents/<peer>/.well-known/agent-card.json``
(and the 0.3 card at ``.../agent.json``), JSON-RPC at ``/agents/<peer>`` (1.0 and 0.3
method names) and REST's ``message:send`` / ``message:stream``. ``GET /peers`` lists them.
Only messaging and per-task calls are open: with no authentication every caller shares one
task store, so listing tasks or push configurations would expose other callers' work.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from band._extras import needs_extra
from band.integrations.uvicorn_server import ManagedUvicornServer
from band.protocol.contacts import Peer

with needs_extra("the A2A gateway needs a2a-sdk", "a2a_gateway"):
    from a2a.compat.v0_3.conversions import to_compat_agent_card
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes.agent_card_routes import create_agent_card_routes
    from a2a.server.routes.jsonrpc_routes import create_jsonrpc_routes
    from a2a.server.routes.rest_routes import create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
    from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_CURRENT
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import BaseRoute, Route

__all__ = ["ALLOWED_JSONRPC_METHODS", "ExecutorFactory", "GatewayServer"]

logger = logging.getLogger("band.integrations.a2a.gateway")
ExecutorFactory = Callable[[str], AgentExecutor]
MESSAGING_REST_SUFFIXES = ("/message:send", "/message:stream", "/card")
ALLOWED_JSONRPC_METHODS = frozenset(
    {
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "CancelTask",
        "SubscribeToTask",
        "message/send",
        "message/stream",
        "tasks/get",
        "tasks/cancel",
        "tasks/resubscribe",
    }
)


class GatewayServer:
    """Serves ``peers`` (slug -> peer) as A2A agents; ``executor_factory(slug)`` runs them.

    An empty ``gateway_url`` advertises ``http://localhost:<bound port>``.
    """

    def __init__(
        self,
        peers: dict[str, Peer],
        gateway_url: str,
        port: int,
        executor_factory: ExecutorFactory,
        *,
        host: str = "127.0.0.1",
    ) -> None:
        self.peers = peers
        self.gateway_url = gateway_url.rstrip("/")
        self.port = port
        self.host = host
        self.executor_factory = executor_factory
        self._runtime: ManagedUvicornServer | None = None
        self._socket: socket.socket | None = None
        self._handlers: dict[str, DefaultRequestHandler] = {}

    @property
    def bound_port(self) -> int:
        """The listening port (what the OS chose for port 0)."""
        if self._runtime is None:
            raise RuntimeError("A2A Gateway server has not started")
        return self._runtime.bound_port

    async def start(self) -> None:
        """Bind, build the routes (the cards need the URL) and serve."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        sock.listen(2048)
        sock.setblocking(False)
        self._socket = sock
        bound = int(sock.getsockname()[1])
        self.gateway_url = self.gateway_url or f"http://localhost:{bound}"
        self._runtime = ManagedUvicornServer(
            self._build_app(), host=self.host, port=bound, sock=sock
        )
        try:
            await self._runtime.start()
        except BaseException:
            await self.stop()
            raise
        logger.info("A2A gateway on %s:%d serving %d peers", self.host, bound, len(self.peers))

    async def stop(self) -> None:
        """Stop listening, then close every peer's request handler (their running tasks)."""
        if self._runtime is not None:
            await self._runtime.stop()
            self._runtime = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        errors: list[Exception] = []
        for slug, handler in list(self._handlers.items()):
            try:
                await handler.aclose()
            except Exception as exc:
                errors.append(exc)
            else:
                del self._handlers[slug]
        if errors:
            raise ExceptionGroup("A2A request handlers failed to close; stop() again", errors)

    # -- routes ------------------------------------------------------------------------------

    def agent_card(self, alias: str, peer: Peer) -> AgentCard:
        url = f"{self.gateway_url}/agents/{alias}"
        interfaces = [
            AgentInterface(protocol_binding="JSONRPC", protocol_version=version, url=url)
            for version in (PROTOCOL_VERSION_CURRENT, PROTOCOL_VERSION_0_3)
        ]
        about = peer.description or f"{peer.name}, on Band"
        return AgentCard(
            name=peer.name,
            description=about,
            supported_interfaces=interfaces,
            version="1.0.0",
            capabilities=AgentCapabilities(streaming=True),
            skills=[AgentSkill(id="default", name=peer.name, description=about, tags=["band"])],
            default_input_modes=["text/plain"],
            default_output_modes=["text/plain"],
        )

    def _build_app(self) -> Starlette:
        routes: list[BaseRoute] = [Route("/peers", self._list_peers, methods=["GET"])]
        for slug, peer in self.peers.items():
            # One handler (and task store) per peer, whichever alias a request uses.
            handler = self._handlers.get(slug)
            if handler is None:
                handler = DefaultRequestHandler(
                    agent_executor=self.executor_factory(slug),
                    task_store=InMemoryTaskStore(),
                    agent_card=self.agent_card(slug, peer),
                )
                self._handlers[slug] = handler
            for alias in dict.fromkeys((slug, peer.id)):
                card = self.agent_card(alias, peer)
                base = f"/agents/{alias}"
                routes += create_agent_card_routes(
                    card, card_url=f"{base}/.well-known/agent-card.json"
                )
                routes.append(Route(f"{base}/.well-known/agent.json", _legacy_card(card)))
                routes.append(_guarded_jsonrpc(handler, base))
                routes += [
                    route
                    for route in create_rest_routes(
                        handler, enable_v0_3_compat=True, path_prefix=base
                    )
                    if isinstance(route, Route) and route.path.endswith(MESSAGING_REST_SUFFIXES)
                ]
        return Starlette(routes=routes)

    async def _list_peers(self, _request: Request) -> JSONResponse:
        peers = [
            {"slug": slug, "id": p.id, "name": p.name, "description": p.description or ""}
            for slug, p in self.peers.items()
        ]
        return JSONResponse({"peers": peers, "count": len(peers)})


def _guarded_jsonrpc(handler: DefaultRequestHandler, path: str) -> Route:
    """a2a-sdk's JSON-RPC endpoint, answering -32601 to every method outside the allowed set."""
    (route,) = create_jsonrpc_routes(handler, rpc_url=path, enable_v0_3_compat=True)
    dispatch = route.endpoint

    async def endpoint(request: Request) -> Any:
        try:
            body = await request.json()  # cached on the request: the dispatcher reads it again
        except ValueError:
            body = None
        method = body.get("method") if isinstance(body, dict) else None
        if method is not None and method not in ALLOWED_JSONRPC_METHODS:
            request_id = body.get("id") if isinstance(body, dict) else None
            error = {"code": -32601, "message": "Method not found"}
            rid = request_id if isinstance(request_id, str | int) else None
            return JSONResponse({"jsonrpc": "2.0", "id": rid, "error": error})
        return await dispatch(request)

    return Route(path, endpoint, methods=["POST"])


def _legacy_card(card: AgentCard) -> Callable[[Request], Awaitable[Response]]:
    """The 0.3 form of ``card``, for clients that still read ``agent.json``."""
    payload = to_compat_agent_card(card).model_dump(by_alias=True, mode="json", exclude_none=True)

    async def respond(_request: Request) -> Response:
        return JSONResponse(payload)

    return respond
