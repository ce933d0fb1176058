"""The interrupt property machine on each database memory: the store always equals memory.

The same random episodes as ``test_interrupt_property`` (interrupts anywhere: streaming, in a
tool, parked on an approval, compressing; second interrupts, concurrent calls, steering) run on
an agent whose memory is an ``AsyncSQLAlchemyMemory`` (SQLite, PostgreSQL) or a
``RedisMemory`` on a real server. After every step, a new memory object on the same session
reads the store, and it must hold exactly what the agent holds (messages, marks, summary),
without anyone flushing: the reply itself leaves the store complete when it ends. A rule
restarts the agent's memory from the store (a new process opening the session): the fresh
object must hold what the old one held, and the episodes go on with it.

CI runs 25 derandomized examples of up to 8 steps per backend (under a minute for the three on
2 cores; 4 examples never reached the in-place change this found: ``regenerate()`` tagging its
answer after the reply had been stored); ``NB_HITL_STORED_PROPERTY_EXAMPLES`` raises it.
"""

from __future__ import annotations

import asyncio
import uuid

from hypothesis.stateful import initialize, invariant, precondition, rule, run_state_machine_as_test
from interrupt_harness import Harness, Violation
from machine_support import machine_settings
from stored_backends import Backend, held
from test_interrupt_property import InterruptMachine, agent_plans, episode_plans

from nb_hitl.memory import StoredMemory


def machine_for(backend: Backend) -> type[InterruptMachine]:
    """An interrupt machine whose agents keep their memory on ``backend``."""

    class StoredMachine(InterruptMachine):
        @initialize(plan=agent_plans)
        def make_agent(self, plan) -> None:  # type: ignore[no-untyped-def]
            session = uuid.uuid4().hex[:12]
            self.session = session
            memory = self.loop.run_until_complete(backend.open(session_id=session))
            self.harness = Harness(plan, memory=memory)

        @rule(plan=episode_plans)
        def episode(self, plan) -> None:  # type: ignore[no-untyped-def]
            super().episode(plan)
            assert self.harness is not None
            memory = self.harness.agent.memory
            assert isinstance(memory, StoredMemory)
            # The reply awaited its write when it ended: nothing it changed is still pending.
            if memory.version != memory._synced_version:
                raise Violation("a reply ended with memory changes not yet stored")

        @precondition(lambda self: self.harness is not None)
        @rule()
        def restart_from_the_store(self) -> None:
            """A new process opens the session: its memory object, read from the store, takes
            the old one's place, and must hold exactly what the old one held."""
            assert self.harness is not None
            agent = self.harness.agent
            if agent.is_replying:
                return  # parked on an approval: a restart mid-reply is not a store's business
            old = agent.memory
            assert isinstance(old, StoredMemory)

            async def reopen() -> StoredMemory:
                if old.version != old._synced_version:
                    await old.flush()  # changed between replies (load_state_dict)
                fresh = await backend.open(session_id=self.session)
                await fresh.reload()
                return fresh

            fresh = self.loop.run_until_complete(reopen())
            if held(fresh) != held(old):
                raise Violation(f"a memory reopened from the {backend.kind} store differs")
            agent.memory = fresh
            self.harness.check_memory()

        @invariant()
        def store_equals_memory(self) -> None:
            if self.harness is None:
                return
            memory = self.harness.agent.memory
            assert isinstance(memory, StoredMemory)
            if self.harness.agent.is_replying:
                return  # a reply parked on an approval may go on meanwhile: compared once idle

            async def stored() -> tuple[object, ...]:
                if memory.version != memory._synced_version:
                    # changed by a rule running with no event loop (load_state_dict between
                    # replies): written at the next await, as documented
                    await memory.flush()
                fresh = await backend.open(session_id=self.session)
                await fresh.reload()
                return held(fresh)

            store, mine = self.loop.run_until_complete(stored()), held(memory)
            if store != mine:
                parts = zip(("messages", "marks", "summary"), store, mine, strict=True)
                what = [name for name, a, b in parts if a != b]
                raise Violation(f"the {backend.kind} store differs from memory in its {what}")

        def teardown(self) -> None:
            loop = self.loop
            try:
                if self.harness is not None:  # the agent must still reply normally
                    loop.run_until_complete(self.harness.replies_normally())
            finally:
                try:
                    loop.run_until_complete(backend.close())  # on the loop that opened them
                finally:
                    loop.run_until_complete(loop.shutdown_asyncgens())
                    loop.run_until_complete(loop.shutdown_default_executor())
                    loop.close()

    return StoredMachine


def test_interrupts_leave_the_store_equal_to_memory(stored_backend: Backend) -> None:
    asyncio.run(stored_backend.wipe())
    settings = machine_settings("NB_HITL_STORED_PROPERTY_EXAMPLES", 25)
    run_state_machine_as_test(machine_for(stored_backend), settings=settings)
