"""Runs the Parlant page's ``parlant_server.py`` (``seed/``) unchanged, offline.

    python parlant_seed_server.py SEED_SCRIPT API_PORT TOOL_PORT

Run with the Parlant environment's interpreter (``.venvs/parlant``). Before the script runs,
three things are swapped, nothing else: ``p.NLPServices.openai`` is the deterministic
``FakeNLPService`` the Python Parlant tests use (it answers ``REPLY`` when the seed's guideline
reached the draft prompt, ``FALLBACK`` otherwise, and ``PREAMBLE`` as Parlant's preamble);
``p.Server`` listens on 127.0.0.1 and the given ports instead of 8800/8818; and
``PARLANT_HOME`` is a fresh folder. Beside the seed's agent, the server gets one more agent,
created with Parlant's default perceived-performance policy (so it says a preamble first), and
prints ``PREAMBLE_AGENT_ID=<id>``: the tests show the adapter never posts that preamble.
"""

import os
import runpy
import sys
import tempfile

ANSWER_ACTION = "Answer the question directly, then ask whether anything else is unclear"
REPLY = "Open Settings, then Security, and choose Reset password. Is anything else unclear?"
FALLBACK = "I can look into that for you. Is anything else unclear?"
PREAMBLE = "Let me check that for you."


def _reply(prompt: str) -> str:
    return REPLY if ANSWER_ACTION in prompt else FALLBACK


def main(argv: list[str]) -> None:
    if len(argv) != 3:
        raise SystemExit("usage: parlant_seed_server.py SEED_SCRIPT API_PORT TOOL_PORT")
    script, api_port, tool_port = argv[0], int(argv[1]), int(argv[2])
    os.environ["PARLANT_HOME"] = tempfile.mkdtemp(prefix="band-parlant-seed-")
    import parlant.sdk as p  # after PARLANT_HOME: Parlant reads it at import

    from band.testing.parlant_nlp import FakeNLPService

    fake = FakeNLPService(_reply, preamble=PREAMBLE)
    base = p.Server

    class LoopbackServer(base):  # type: ignore[misc,valid-type]
        def __init__(self, **options: object) -> None:
            options.setdefault("host", "127.0.0.1")
            options.setdefault("port", api_port)
            options.setdefault("tool_service_port", tool_port)
            super().__init__(**options)
            self._preamble_agent = False

        async def create_agent(self, *args: object, **kwargs: object) -> object:
            agent = await super().create_agent(*args, **kwargs)
            if not self._preamble_agent:
                self._preamble_agent = True
                extra = await super().create_agent(
                    name="Preamble Agent", description="Says a preamble before it answers."
                )
                print(f"PREAMBLE_AGENT_ID={extra.id}", flush=True)
            return agent

    p.NLPServices.openai = fake.factory
    p.Server = LoopbackServer
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
