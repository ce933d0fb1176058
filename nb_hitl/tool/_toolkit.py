"""Toolkit: register Python functions as tools, describe them as JSON schemas, call them.

The calling conventions are AgentScope 1.x's (``register_tool_function`` with its keyword
arguments, ``functools.partial`` tools, groups and the meta tool, middlewares, ``await
toolkit.call_tool_function(call)``). nb_hitl adds pydantic validation of every call (bad
arguments come back to the model as an error result instead of a Python exception), tool
approval (``needs_approval``), and plain return values (text or JSON-able data).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import re
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from nb_hitl.exceptions import ToolError
from nb_hitl.message import ToolUseBlock

from ._background import BackgroundTask, BackgroundTasks
from ._execute import ToolCallStream, error_response, run_tool
from ._groups import BASIC, ToolGroup, ToolGroups
from ._kind import PATH_ARGS_ATTR, RULE_ARG_ATTR, ToolKind, declared_kind
from ._registered import ApprovalRule, PostprocessFunc, RegisteredTool
from ._response import ToolResponse
from ._schema import build_args_model, describe, function_schema
from ._skills import AgentSkill, AgentSkills

NamesakeStrategy = Literal["raise", "override", "skip", "rename"]
Middleware = Callable[..., Any]
"""``middleware(kwargs, next_handler)``: an async generator of ``ToolResponse`` (or a
coroutine returning one); ``await next_handler(**kwargs)`` gives the inner stream."""

_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _unwrap_partial(
    func: Callable[..., Any], preset: dict[str, Any]
) -> tuple[Callable[..., Any], dict[str, Any]]:
    """A ``functools.partial``'s function, with its bound arguments turned into presets."""
    bound: dict[str, Any] = {}
    while isinstance(func, functools.partial):
        names = [
            n
            for n, p in inspect.signature(func.func).parameters.items()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(func.args) > len(names):
            raise ToolError(
                f"functools.partial binds {len(func.args)} positional arguments but "
                f"{func.func.__name__} takes {len(names)}; bind them by keyword."
            )
        bound = {**dict(zip(names, func.args, strict=False)), **func.keywords, **bound}
        func = func.func
    return func, {**bound, **preset}


class Toolkit:
    """A set of tools an agent can call.

    It owns two parts: ``grouping`` (``ToolGroups``, ``_groups.py``: the groups and the meta
    tool) and ``background`` (``BackgroundTasks``, ``_background.py``: tools run with
    ``async_execution``); AgentScope's methods for them are one-line delegations.
    """

    def __init__(
        self,
        agent_skill_instruction: str | None = None,
        agent_skill_template: str | None = None,
    ) -> None:
        """Make an empty toolkit.

        Args:
            agent_skill_instruction: the text that introduces the agent skills in the system
                prompt (default: AgentScope's).
            agent_skill_template: how one skill is listed, with ``{name}``, ``{description}``
                and ``{dir}`` (default: AgentScope's).
        """
        self.agent_skills = AgentSkills(agent_skill_instruction, agent_skill_template)
        """The agent skills (``register_agent_skill``) and the prompt that lists them."""
        self.tools: dict[str, RegisteredTool] = {}
        self.grouping = ToolGroups(self)
        """The tool groups and which are on (``_groups.py``)."""
        self.background = BackgroundTasks()
        """The tools running in the background (``_background.py``)."""
        self._middlewares: list[Middleware] = []

    # -- groups (``self.grouping``) ----------------------------------------------------------
    @property
    def groups(self) -> dict[str, ToolGroup]:
        """The tool groups by name (AgentScope's ``toolkit.groups``)."""
        return self.grouping.groups

    @groups.setter
    def groups(self, groups: dict[str, ToolGroup]) -> None:
        self.grouping.groups = groups

    def create_tool_group(
        self, group_name: str, description: str, active: bool = False, notes: str | None = None
    ) -> None:
        """Create a group (inactive by default) that tools can then be registered into.

        Raises:
            ValueError: the group exists already, or is ``basic``.
        """
        self.grouping.create_tool_group(group_name, description, active, notes)

    def update_tool_groups(self, group_names: list[str], active: bool) -> None:
        """Switch the named groups on or off (unknown names and ``basic`` are ignored)."""
        self.grouping.update_tool_groups(group_names, active)

    def remove_tool_groups(self, group_names: str | list[str]) -> None:
        """Remove groups and every tool in them.

        Raises:
            TypeError: a name is not a string.
            ValueError: ``basic`` is among them (it cannot be removed).
        """
        self.grouping.remove_tool_groups(group_names)

    def is_offered(self, tool: RegisteredTool) -> bool:
        """Whether the model is offered ``tool`` now (its group is ``basic`` or active)."""
        return self.grouping.is_offered(tool)

    def get_activated_notes(self) -> str:
        """The notes of the active groups, ready to add to a system prompt."""
        return self.grouping.get_activated_notes()

    def reset_equipped_tools(self, **kwargs: Any) -> ToolResponse:
        """This function allows you to activate or deactivate tool groups
        dynamically based on your current task requirements.
        **Important: Each call sets the absolute final state of ALL tool
        groups, not incremental changes**. Any group not explicitly set to True
        will be deactivated, regardless of its previous state.

        **Best practice**: Actively manage your tool groups——activate only
        what you need for the current task, and promptly deactivate groups as
        soon as they are no longer needed to conserve context space.

        The function will return the usage instructions for the activated tool
        groups, which you **MUST pay attention to and follow**. You can also
        reuse this function to check the notes of the tool groups."""
        # The docstring is the model's description of the tool, AgentScope 1.x's word for word
        # (prompts tuned against it keep working).
        return self.grouping.reset_equipped_tools(**kwargs)

    # -- background tasks (``self.background``) -----------------------------------------------
    @property
    def background_tasks(self) -> list[BackgroundTask]:
        """The background tasks still running, oldest first."""
        return self.background.running

    def watch_background(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` (on the loop) when a background task starts or ends; returns
        a function that stops watching."""
        return self.background.watch(listener)

    def stop_background(self, task_id: str) -> bool:
        """Cancel one running background task now (its result says it was cancelled);
        False when it is not running."""
        return self.background.stop(task_id)

    async def cancel_owned(self, owner: str | None, wait: float = 5.0) -> list[str]:
        """Cancel the running tasks started by reply ``owner`` (except ``outlive_reply``
        ones) and wait up to ``wait`` seconds for them to end; their ids."""
        return await self.background.cancel_owned(owner, wait)

    async def view_task(self, task_id: str) -> ToolResponse:
        """View the status of a background tool task; a finished one returns its result.

        Args:
            task_id: The ID of the background task.
        """
        return await self.background.view_task(task_id)

    async def wait_task(self, task_id: str, timeout: float = 10) -> ToolResponse:
        """Wait for a background tool task to finish and return its result.

        Keep the timeout short and check again later rather than waiting long.

        Args:
            task_id: The ID of the background task.
            timeout: The longest time to wait, in seconds.
        """
        return await self.background.wait_task(task_id, timeout)

    async def cancel_task(self, task_id: str) -> ToolResponse:
        """Cancel a background tool task.

        Args:
            task_id: The ID of the background task.
        """
        return await self.background.cancel_task(task_id)

    @property
    def _async_tasks(self) -> dict[str, asyncio.Task[None]]:
        """AgentScope's attribute: the running background tasks by id."""
        return self.background._async_tasks

    @property
    def _async_results(self) -> dict[str, ToolResponse]:
        """AgentScope's attribute: the finished background tasks' results by id."""
        return self.background._async_results

    # -- registering -------------------------------------------------------------------------
    def register_tool_function(
        self,
        tool_func: Callable[..., Any],
        group_name: str = BASIC,
        preset_kwargs: dict[str, Any] | None = None,
        func_name: str | None = None,
        func_description: str | None = None,
        json_schema: dict[str, Any] | None = None,
        include_long_description: bool = True,
        include_var_positional: bool = False,
        include_var_keyword: bool = False,
        postprocess_func: PostprocessFunc | None = None,
        namesake_strategy: NamesakeStrategy = "raise",
        async_execution: bool = False,
        *,
        name: str | None = None,
        description: str | None = None,
        needs_approval: ApprovalRule = False,
        read_only: bool | None = None,
        outlive_reply: bool = False,
        kind: ToolKind | None = None,
        path_args: Sequence[str] | None = None,
        rule_arg: str | None = None,
        rule_matcher: Callable[[str, dict[str, Any]], bool] | None = None,
        always_ask: bool = False,
    ) -> RegisteredTool:
        """Register a function as a tool (sync or async, returning or streaming).

        Args:
            tool_func: the function, a bound method or a ``functools.partial`` (its bound
                arguments become presets; name and docstring come from the wrapped function).
                The signature gives the argument schema, the Google-style docstring the
                description and argument texts.
            group_name: the tool group (``create_tool_group`` first); ``basic`` is always on.
            preset_kwargs: arguments filled in by the toolkit, hidden from the model.
            func_name: the tool's name (default: the function's).
            func_description: the description (default: from the docstring).
            json_schema: a complete ``{"type": "function", "function": {...}}`` schema to use
                instead of the generated one (calls are still validated against the signature).
            include_long_description: add the docstring text after its first line.
            include_var_positional: offer ``*args`` in the schema.
            include_var_keyword: offer ``**kwargs`` in the schema.
            postprocess_func: ``f(call, response)``, sync or async, run on every response; a
                returned ``ToolResponse`` replaces it.
            namesake_strategy: when the name is taken: ``raise`` (``ToolError``, a
                ``ValueError``), ``override``, ``skip`` or ``rename`` (adds a random suffix).
            async_execution: run in the background and answer at once with a task id.
            name: nb_hitl's older name for ``func_name``.
            description: nb_hitl's older name for ``func_description``.
            needs_approval: ``True``, or a predicate on the call, to make calls wait for a
                person's approval before they run (nb_hitl only).
            read_only: the tool only reads (nothing it does needs undoing): the
                ``allow_reads`` permission mode lets its calls run without asking. Default:
                the function's ``__nb_hitl_read_only__`` attribute (``ask_user`` has it).
            outlive_reply: with ``async_execution``, its background tasks keep running when
                the reply that started them is interrupted (others are cancelled then).
            kind: what the tool does, ``"reads"``, ``"edits"`` or ``"runs"`` (default: what
                the function declared with ``tool_kind``; the built-in tools declare theirs).
                A ``"reads"`` tool is ``read_only`` unless ``read_only=False`` says otherwise.
                ``"network"`` marks a tool that talks to other machines.
            path_args: the arguments that are file paths: permission rules match them
                normalised (``..``, ``.``, repeated ``/``, symlinks resolved). Default: what
                ``tool_kind(path_args=...)`` declared.
            rule_arg: the argument a rule specifier matches (``run_shell(npm test:*)``).
                Default: ``tool_kind(rule_arg=...)``, else the first path argument, else the
                only required text argument.
            rule_matcher: ``matcher(specifier, arguments) -> bool``, the tool's own reading
                of a rule specifier (instead of the prefix/glob/regex matching).
            always_ask: every call waits for a person: no permission mode or broad rule
                lets it run, only a decision on that call.

        Returns:
            The registered tool (with ``skip``, the one already registered).
        """
        if not callable(tool_func):
            raise ToolError(f"register_tool_function needs a function, got {tool_func!r}.")
        if namesake_strategy not in ("raise", "override", "skip", "rename"):
            raise ToolError(
                f"namesake_strategy must be 'raise', 'override', 'skip' or 'rename', "
                f"got {namesake_strategy!r}."
            )
        if group_name != BASIC and group_name not in self.groups:
            raise ToolError(
                f"Tool group {group_name!r} not found; call create_tool_group({group_name!r}, "
                "description) first."
            )
        if json_schema is not None and not (
            isinstance(json_schema, dict)
            and json_schema.get("type") == "function"
            and isinstance(json_schema.get("function"), dict)
        ):
            raise ToolError(
                'json_schema must look like {"type": "function", "function": {"name": ..., '
                '"description": ..., "parameters": {...}}}.'
            )
        func, preset = _unwrap_partial(tool_func, dict(preset_kwargs or {}))
        own_name = getattr(func, "__name__", None) or type(func).__name__
        tool_name = func_name or name or own_name
        if not _NAME_RE.fullmatch(tool_name):
            raise ToolError(
                f"Tool name {tool_name!r} is not valid: use 1-64 letters, digits, '_' or '-' "
                "(pass func_name=... to choose one)."
            )
        args_model = build_args_model(
            func, tool_name, set(preset), include_var_positional, include_var_keyword
        )
        text = func_description or description
        if json_schema is not None:
            schema = _own_schema(json_schema, tool_name, text, set(preset))
        else:
            text = text or describe(func, include_long_description)
            schema = function_schema(tool_name, text, args_model)
        var_positional = next(
            (
                n
                for n, p in inspect.signature(func).parameters.items()
                if p.kind is p.VAR_POSITIONAL and include_var_positional
            ),
            None,
        )
        kind = kind if kind is not None else declared_kind(func)
        paths = tuple(path_args if path_args is not None else getattr(func, PATH_ARGS_ATTR, ()))
        params = set(args_model.model_fields)
        rule_arg = (
            rule_arg or getattr(func, RULE_ARG_ATTR, None) or _default_rule_arg(args_model, paths)
        )
        for arg in (*paths, *([rule_arg] if rule_arg else [])):
            if arg not in params:
                raise ToolError(
                    f"Tool {tool_name!r} has no argument {arg!r} to declare as a path or rule "
                    f"argument (arguments: {', '.join(sorted(params)) or 'none'})."
                )
        if read_only is None:
            read_only = bool(getattr(func, "__nb_hitl_read_only__", False)) or kind == "reads"
        tool = RegisteredTool(
            name=tool_name,
            func=func,
            args_model=args_model,
            description=schema["function"].get("description", ""),
            needs_approval=needs_approval,
            preset_kwargs=preset,
            group=group_name,
            json_schema=schema,
            original_name=own_name if tool_name != own_name else None,
            postprocess_func=postprocess_func,
            async_execution=async_execution,
            var_positional=var_positional,
            read_only=bool(read_only),
            kind=kind,
            path_args=paths,
            rule_arg=rule_arg,
            rule_matcher=rule_matcher,
            always_ask=bool(always_ask),
            outlive_reply=bool(outlive_reply),
        )
        if tool_name in self.tools:
            if namesake_strategy == "skip":
                return self.tools[tool_name]
            if namesake_strategy == "rename":
                tool = self._renamed(tool)
            elif namesake_strategy == "raise":
                raise ToolError(
                    f"A tool named {tool_name!r} is already registered; pass func_name=..., "
                    "namesake_strategy='override'/'rename', or call remove_tool_function first."
                )
        self.tools[tool.name] = tool
        return tool

    def _renamed(self, tool: RegisteredTool) -> RegisteredTool:
        for _ in range(100):
            new = f"{tool.name}_{uuid.uuid4().hex[:5]}"
            if new not in self.tools:
                break
        else:  # pragma: no cover - 100 collisions of 20 random bits
            raise ToolError(f"Could not find a free name for tool {tool.name!r}.")
        tool.original_name = tool.original_name or tool.name
        tool.name = new
        tool.json_schema["function"]["name"] = new
        return tool

    def remove_tool_function(self, tool_name: str, allow_not_exist: bool = True) -> None:
        """Unregister a tool.

        Raises:
            ToolError: no such tool and ``allow_not_exist`` is ``False``.
        """
        if tool_name not in self.tools and not allow_not_exist:
            raise ToolError(f"Tool function {tool_name!r} does not exist in the toolkit.")
        self.tools.pop(tool_name, None)

    def clear(self) -> None:
        """Remove every tool and group."""
        self.tools.clear()
        self.groups.clear()

    def set_extended_model(self, func_name: str, model: type[BaseModel] | None) -> None:
        """Add a pydantic model's fields to a tool's arguments (``None`` removes them).

        Raises:
            TypeError: ``model`` is not a pydantic model class.
            ToolError: no tool ``func_name`` (a ``ValueError``).
        """
        if model is not None and not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise TypeError(
                f"The extended model must be a pydantic BaseModel class, got {model!r}."
            )
        if func_name not in self.tools:
            raise ToolError(f"Tool function {func_name!r} not found in the toolkit.")
        self.tools[func_name].extended_model = model

    def register_middleware(self, middleware: Middleware) -> None:
        """Wrap ``call_tool_function`` in an onion-style middleware (the first added is outermost).

        ``middleware(kwargs, next_handler)`` gets ``kwargs = {"tool_call": call}`` and yields
        responses; ``await next_handler(**kwargs)`` gives the inner stream. It can change
        the call, skip it, or rewrite each response.
        """
        self._middlewares.append(middleware)

    # -- agent skills --------------------------------------------------------------------------
    @property
    def skills(self) -> dict[str, AgentSkill]:
        """The registered agent skills by name (AgentScope's ``toolkit.skills``)."""
        return self.agent_skills.skills

    def register_agent_skill(self, skill_dir: str) -> None:
        """Register the agent skill in ``skill_dir``, whose ``SKILL.md`` front matter names and
        describes it; ``get_agent_skill_prompt()`` then lists it.

        Raises:
            ValueError: no such folder, no ``SKILL.md``, no ``name`` or ``description`` in its
                front matter, or a skill of that name is registered already.
        """
        self.agent_skills.register(skill_dir)

    def remove_agent_skill(self, name: str) -> None:
        """Remove the agent skill ``name`` (logs a warning when there is none)."""
        self.agent_skills.remove(name)

    def get_agent_skill_prompt(self) -> str | None:
        """The prompt listing the registered skills (``ReActAgent`` appends it to its system
        prompt), or ``None`` when none is registered."""
        return self.agent_skills.prompt()

    # -- describing --------------------------------------------------------------------------
    def get_json_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas of the tools offered now (``basic`` and active groups)."""
        self.grouping.refresh_meta_tool()
        return [t.extended_json_schema for t in self.tools.values() if self.is_offered(t)]

    # -- calling -----------------------------------------------------------------------------
    def validate_call(self, call: ToolUseBlock) -> dict[str, Any]:
        """Validate ``call``'s arguments; return them, or raise ``ToolError`` saying why."""
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            raise ToolError(f"Unknown tool {call.name!r}. Available tools: {known}.")
        if call.raw_input is not None:
            raise ToolError(
                f"The arguments for {call.name!r} are not valid JSON: {call.raw_input[:200]!r}."
            )
        given = dict(call.input)
        extended: dict[str, Any] = {}
        if tool.extended_model is not None:
            names = set(tool.extended_model.model_fields)
            extended = {k: given.pop(k) for k in list(given) if k in names}
        try:
            model = tool.args_model.model_validate(given)
            if tool.extended_model is not None:
                tool.extended_model.model_validate(extended)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            raise ToolError(f"Invalid arguments for {call.name!r}: {problems}.") from None
        values = {k: getattr(model, k) for k in type(model).model_fields}
        return {**values, **(model.model_extra or {}), **extended}

    def call_tool_function(self, call: ToolUseBlock) -> ToolCallStream:
        """Run ``call``; an async stream of its responses (several for streaming tools).

        Iterate it directly, or ``await`` it first as in AgentScope 1.x. Errors (unknown or
        inactive tool, invalid arguments, an exception in the tool) come as a response with
        ``is_error=True`` so the model can see them and recover.
        """
        return ToolCallStream(self._through_middlewares(call))

    async def _through_middlewares(self, call: ToolUseBlock) -> AsyncGenerator[ToolResponse, None]:
        async def innermost(**kwargs: Any) -> AsyncGenerator[ToolResponse, None]:
            return self._call(kwargs["tool_call"])

        handler: Callable[..., Any] = innermost
        for middleware in reversed(self._middlewares):
            handler = _layer(middleware, handler)
        stream = await handler(tool_call=call)
        try:
            async for chunk in stream:
                yield chunk
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()

    async def _call(self, call: ToolUseBlock) -> AsyncGenerator[ToolResponse, None]:
        tool = self.tools.get(call.name)
        if tool is not None and not self.is_offered(tool):
            yield error_response(
                f"FunctionInactiveError: The function '{call.name}' is in the inactive group "
                f"'{tool.group}'. Activate the tool group by calling 'reset_equipped_tools' "
                "first to use this tool."
            )
            return
        try:
            kwargs = self.validate_call(call)
        except ToolError as exc:
            yield error_response(f"Error: {exc}")
            return
        assert tool is not None
        kwargs.update(tool.preset_kwargs)
        if tool.async_execution:
            yield self.background.start(
                call.name, lambda: run_tool(tool, call, kwargs), tool.outlive_reply
            )
            return
        responses = run_tool(tool, call, kwargs)
        try:
            async for chunk in responses:
                yield chunk
        finally:
            await responses.aclose()

    # -- state -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The active groups (AgentScope's shape): ``{"active_groups": [...]}``."""
        return {"active_groups": [n for n, g in self.groups.items() if g.active]}

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Activate exactly the groups ``state`` lists.

        Raises:
            ValueError: ``state`` is not ``{"active_groups": [names]}`` (with ``strict``,
                no other key allowed).
        """
        groups = state.get("active_groups") if isinstance(state, dict) else None
        if not isinstance(groups, list):
            raise ValueError('A toolkit state must be {"active_groups": [group names]}.')
        if strict and set(state) != {"active_groups"}:
            raise ValueError(f"Unexpected keys in the toolkit state: {sorted(state)}.")
        for name, group in self.groups.items():
            group.active = name in groups


def _default_rule_arg(args_model: type[BaseModel], paths: tuple[str, ...]) -> str | None:
    """The first path argument, else the only required text argument, else None."""
    if paths:
        return paths[0]
    texts = [
        name
        for name, f in args_model.model_fields.items()
        if f.is_required() and f.annotation is str
    ]
    return texts[0] if len(texts) == 1 else None


def _layer(middleware: Middleware, inner: Callable[..., Any]) -> Callable[..., Any]:
    async def handler(**kwargs: Any) -> Any:
        out = middleware(kwargs, inner)
        return await out if inspect.isawaitable(out) else out

    return handler


def _own_schema(
    given: dict[str, Any], name: str, description: str | None, preset: set[str]
) -> dict[str, Any]:
    """A copy of a caller's schema with the tool's name, description and presets applied."""
    import copy

    schema = copy.deepcopy(given)
    function = schema["function"]
    function["name"] = name
    if description:
        function["description"] = description
    params = function.setdefault("parameters", {"type": "object", "properties": {}})
    for arg in preset:
        params.get("properties", {}).pop(arg, None)
    if "required" in params:
        params["required"] = [r for r in params["required"] if r not in preset]
        if not params["required"]:
            params.pop("required")
    return schema
