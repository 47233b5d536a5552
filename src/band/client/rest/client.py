"""``AsyncRestClient``: band-client-rest's namespaced client, on the SDK's own HTTP core.

``client.agent_api_messages.create_agent_chat_message(chat_id=..., message=...)`` and
``client.human_api_messages.send_my_chat_message(...)`` answer objects with ``.data``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import Any

import httpx

from band.platform._http import HttpCore
from band.platform.urls import DEFAULT_REST_URL

from . import _admin as admin
from . import _agent as agent
from . import _human as human
from ._core import Caller

__all__ = ["AsyncRestClient", "RestClient", "RestClientEnvironment", "aclose_rest_client"]


class RestClientEnvironment(Enum):
    """The platform a client talks to when no ``base_url`` is given."""

    DEFAULT = DEFAULT_REST_URL


class _RestClientBase(ABC):
    """The constructor both clients share: band-client-rest's parameters, built into one core.

    ``base_url`` is the platform's root (``http://127.0.0.1:8080``); ``transport`` swaps the
    network (``httpx.ASGITransport`` for an in-process platform); ``http`` hands over a core
    already built (the other parameters but ``api_key`` are then unused). ``headers`` go with
    every request (the key header stays ``api_key``'s); ``follow_redirects`` as httpx's. Of an
    ``httpx_client`` only an ``httpx.AsyncClient``'s transport is reused (our core owns headers,
    retries and timeouts). ``logging`` is taken for band-client-rest's signature: the SDK logs
    through ``logging``'s ``band`` loggers.
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        environment: RestClientEnvironment | str = RestClientEnvironment.DEFAULT,
        api_key: str,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        follow_redirects: bool | None = True,
        httpx_client: httpx.AsyncClient | httpx.Client | None = None,
        logging: Any = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http: HttpCore | None = None,
    ) -> None:
        if http is None:
            if isinstance(httpx_client, httpx.AsyncClient) and transport is None:
                transport = httpx_client._transport
            root = environment.value if isinstance(environment, Enum) else environment
            http = HttpCore(
                base_url or root,
                api_key,
                transport=transport,
                timeout=timeout or 60.0,
                headers=headers,
                follow_redirects=bool(follow_redirects),
            )
        self._start(http)

    @abstractmethod
    def _start(self, http: HttpCore) -> None:
        """Set the client up over ``http``."""


class AsyncRestClient(_RestClientBase):
    """Async client of both REST surfaces, authenticated with ``X-API-Key``; errors raise
    ``ApiError``. Its parameters are ``_RestClientBase``'s."""

    def _start(self, http: HttpCore) -> None:
        self._http = http
        c = Caller(http)
        self.agent_api_identity = agent.AgentIdentityApi(c)
        self.agent_api_chats = agent.AgentChatsApi(c)
        self.agent_api_messages = agent.AgentMessagesApi(c)
        self.agent_api_events = agent.AgentEventsApi(c)
        self.agent_api_participants = agent.AgentParticipantsApi(c)
        self.agent_api_context = agent.AgentContextApi(c)
        self.agent_api_peers = agent.AgentPeersApi(c)
        self.agent_api_activity = agent.AgentActivityApi(c)
        self.agent_api_contacts = agent.AgentContactsApi(c)
        self.agent_api_memories = agent.AgentMemoriesApi(c)
        self.agent_api_chat_tasks = agent.AgentChatTasksApi(c)
        self.agent_api_delegation = agent.AgentDelegationApi(c)
        self.agent_api_files = agent.AgentFilesApi(c)
        self.human_api_profile = human.HumanProfileApi(c)
        self.human_api_agents = human.HumanAgentsApi(c)
        self.human_api_bulk_deletions = human.HumanBulkDeletionsApi(c)
        self.human_api_chats = human.HumanChatsApi(c)
        self.human_api_messages = human.HumanMessagesApi(c)
        self.human_api_participants = human.HumanParticipantsApi(c)
        self.human_api_peers = human.HumanPeersApi(c)
        self.human_api_contacts = human.HumanContactsApi(c)
        self.human_api_memories = human.HumanMemoriesApi(c)
        # Ours, beyond band-client-rest: person-side tasks and files, the admin surface.
        self.human_api_chat_tasks = human.HumanChatTasksApi(c)
        self.human_api_files = human.HumanFilesApi(c)
        self.admin_api_directory = admin.AdminDirectoryApi(c)
        self.admin_api_chats = admin.AdminChatsApi(c)
        self.admin_api_imports = admin.AdminImportsApi(c)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncRestClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def aclose_rest_client(client: AsyncRestClient) -> None:
    """Close ``client`` (the function form band-client-rest users call)."""
    await client.aclose()


class RestClient(_RestClientBase):
    """The blocking twin of ``AsyncRestClient``: the same parameters and namespaces, each call
    run to the end.

    It owns a private event loop, so it cannot be used from inside a running loop (use
    ``AsyncRestClient`` there). ``close()`` ends it.
    """

    def _start(self, http: HttpCore) -> None:
        import asyncio

        self._loop = asyncio.new_event_loop()
        # ``http`` carries the key already: the async client takes ``api_key`` only to build one.
        self._async = AsyncRestClient(api_key="", http=http)

    def __getattr__(self, name: str) -> Any:
        namespace = getattr(self._async, name)
        return _Blocking(namespace, self._loop)

    def close(self) -> None:
        """Close the connection pool and the loop."""
        if not self._loop.is_closed():
            self._loop.run_until_complete(self._async.aclose())
            self._loop.close()

    def __enter__(self) -> RestClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Blocking:
    """One namespace whose methods run on the client's loop and return the answer."""

    def __init__(self, namespace: Any, loop: Any) -> None:
        self._namespace, self._loop = namespace, loop

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._namespace, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._loop.run_until_complete(method(*args, **kwargs))

        call.__name__ = name
        call.__doc__ = method.__doc__
        return call
