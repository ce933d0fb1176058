"""The metadata keys nb_hitl writes into ``Msg.metadata``, each named once.

Every key is the wire name saved sessions, AG-UI clients and AgentScope code already read
(``msg.metadata["_is_interrupted"]`` keeps working); code in the package spells it
``msg.metadata[MetaKey.IS_INTERRUPTED]`` so a reader finds every writer and reader of one
contract with one search. ``nb_hitl._render`` sits below ``message`` and imports nothing of
nb_hitl, so it alone keeps the literal names (its module says so).
"""

from __future__ import annotations

from typing import Final


class MetaKey:
    """The keys of ``Msg.metadata`` that nb_hitl writes and reads, grouped by who writes them.

    A namespace of string constants (not an enum): the values are plain ``str`` so metadata
    stays JSON as it always was.
    """

    # -- a reply stopped by interrupt() (``AgentBase.handle_interrupt``) -------------------------
    IS_INTERRUPTED: Final = "_is_interrupted"
    """``True`` on the message ``handle_interrupt()`` returned (AgentScope's own key)."""
    INTERRUPTED_AT: Final = "interrupted_at"
    """Where the reply was when it stopped (``"reasoning"``, ``"acting"``, ...)."""
    INTERRUPTED_BY: Final = "interrupted_by"
    """The first cause of the stop: ``"interrupt"``, ``"kernel"``, ``"hub"``, ..."""
    PARTIAL_MSG_ID: Final = "partial_msg_id"
    """On the interrupted message: the id of the partial answer kept in memory."""
    PARTIAL_DIGEST: Final = "partial_digest"
    """On the interrupted message: a digest of the partial text (resume checks it is intact)."""
    CLOSED_CALLS: Final = "closed_calls"
    """On the interrupted message: the tool calls closed as interrupted (resume runs them)."""

    # -- the live answer a stop or a model error left behind ----------------------------------
    PARTIAL: Final = "_partial"
    """``True`` on an answer cut short (the text so far is kept)."""
    ERROR: Final = "_error"
    """``"Type: message"`` of the model error that cut the answer short."""
    DROPPED_TOOL_CALLS: Final = "dropped_tool_calls"
    """Tool calls whose arguments had not finished streaming when the answer stopped."""
    USAGE: Final = "usage"
    """The provider's token usage of the model call (a ``ChatUsage`` dump), in sessions saved
    before ``Msg.usage`` held it."""

    # -- stop_after_step() and max_iters ------------------------------------------------------
    STOPPED_AFTER_STEP: Final = "stopped_after_step"
    """``True`` on the message a reply stopped at a step boundary returned (not interrupted)."""
    STOPPED_AT: Final = "stopped_at"
    """The step boundary a ``stop_after_step`` reply stopped at."""
    MAX_ITERS_REACHED: Final = "max_iters_reached"
    """``True`` on the summary a reply that used up ``max_iters`` returned."""

    # -- steering and resume -------------------------------------------------------------------
    STEERED: Final = "_steered"
    """``True`` on a message ``agent.steer()`` put into a running reply."""
    STEERED_AT: Final = "steered_at"
    """Where the reply was when the steering message was taken in."""
    RESUME_INSTRUCTION: Final = "_resume_instruction"
    """``True`` on the user message a ``resume(instruction)`` recorded."""
    CONTINUES: Final = "continues"
    """The id of the interrupted message a resumed reply (or its instruction) continues."""
    CONTINUED_FROM: Final = "continued_from"
    """The id of the partial answer a continuation extends."""
    CONTINUED_BY: Final = "continued_by"
    """How the partial answer was continued: ``"assistant_prefix"``, ``"prompt"``, ..."""
    PARTIAL_CHARS: Final = "partial_chars"
    """Where the seam is: the length of the partial text the continuation starts after."""
    CONTINUATION_NOTE: Final = "continuation_note"
    """Why the continuation differs from a plain one (the resume point's ``note``)."""
    RESUMED_CALLS: Final = "resumed_calls"
    """On a resumed tool-call message: new tool-call id -> the interrupted call's id."""
    PROVIDER_TOOL_CALL_IDS: Final = "provider_tool_call_ids"
    """Fresh tool-call ids given to a provider's reused ones: new id -> provider's id."""

    # -- branches and approvals --------------------------------------------------------------
    EDITED_FROM: Final = "edited_from"
    """On an edited user message: the id of the message it replaces."""
    REGENERATES: Final = "regenerates"
    """On a regenerated answer: the id of the answer it replaces."""
    EDITED_TOOL_CALLS: Final = "edited_tool_calls"
    """Tool calls a human edited before approving: call id -> ``{"original_input": ...}``."""

    # -- pipelines and panels --------------------------------------------------------------
    PIPELINE: Final = "pipeline"
    """On a pipeline's message: which pipeline and step (``id``, ``kind``, ``position``,
    ``agent``)."""
    PANEL_ERROR: Final = "_nb_hitl_error"
    """``True`` on an error row a panel drew itself (never sent to a model)."""
