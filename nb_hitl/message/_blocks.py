"""Typed content blocks of a message: text, thinking, tool use and result, image, audio, video.

The names, ``type`` tags and keys are AgentScope 1.x's, and so is the shape: each block is a
``dict`` (AgentScope's are ``TypedDict``s), so ``json.dumps(msg.content)``, ``block["text"]``,
``{**block}`` and ``block == {"type": "text", "text": "hi"}`` work as there. What nb_hitl adds
is kept: each block is a ``dict`` subclass tagged by its class (``isinstance(b, TextBlock)``),
validated when it is made and whenever a key is set (a pydantic ``ValidationError`` naming the
key), with typed attributes for its keys (``block.text``, ``call.input``). A plain dict is
accepted wherever a block is (``Msg(..., content=[{"type": "text", "text": "hi"}])``) and
becomes the block its ``type`` names.

A key whose value would be ``None`` (``raw_input``) is left out, as a ``TypedDict`` leaves out a
key it does not have; so are nb_hitl's flags at their default (``is_error``/``is_interrupted``
False), so a block equals, and dumps as, AgentScope's dict. The attribute still reads the default
(``call.raw_input is None``, ``result.is_error is False``).

This module imports no pydantic: a block tells pydantic how to validate and dump it
(``__get_pydantic_core_schema__``) only when a model that holds blocks is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Generic,
    Literal,
    TypeVar,
    Union,
    overload,
)

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic_core import CoreSchema

T = TypeVar("T")
Loc = tuple[Union[str, int], ...]  # noqa: UP007 - evaluated at import on Python 3.10
_REQUIRED: Any = object()


class _Invalid(Exception):
    """The problems found in one value, each ``(where, what is wrong, the value)``."""

    def __init__(self, problems: list[tuple[Loc, str, Any]]) -> None:
        super().__init__(problems)
        self.problems = problems


def _invalid(loc: Loc, message: str, value: Any) -> _Invalid:
    return _Invalid([(loc, message, value)])


def _validation_error(title: str, error: _Invalid) -> ValueError:
    """Pydantic's ``ValidationError`` for ``error`` (what the pydantic blocks raised)."""
    from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

    details = [
        InitErrorDetails(type=PydanticCustomError("invalid_block", message), loc=loc, input=value)
        for loc, message, value in error.problems
    ]
    return ValidationError.from_exception_data(title, details)


# -- checks: the value as stored, or _Invalid ----------------------------------------------------
def _str(value: Any, loc: Loc) -> str:
    if isinstance(value, str):
        return value
    raise _invalid(loc, "Input should be a valid string", value)


def _bool(value: Any, loc: Loc) -> bool:
    if isinstance(value, bool):
        return value
    raise _invalid(loc, "Input should be a valid boolean", value)


def _object(value: Any, loc: Loc) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    raise _invalid(loc, "Input should be a valid dictionary", value)


class _Key(Generic[T]):
    """One key of a block: how its value is checked, its default, and the typed attribute."""

    def __init__(
        self,
        check: Callable[[Any, Loc], Any],
        default: Any = _REQUIRED,
        *,
        factory: Callable[[], T] | None = None,
        omit: Any = _REQUIRED,
    ) -> None:
        self.check = check
        self.default = default
        """What an absent key reads as (``_REQUIRED``: it must be given)."""
        self.factory = factory
        """Makes the value stored when the key is not given (``input``'s empty dict)."""
        self.omit = omit
        """A value that is not stored (``None``, or a flag's default)."""
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _Key[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = dict.get(obj, self.name, self.default)
        if value is _REQUIRED:  # removed with del or pop
            raise AttributeError(f"{type(obj).__name__} has no {self.name!r}")
        return value

    def __set__(self, obj: _Block, value: T) -> None:
        obj[self.name] = value


class _Block(dict[str, Any]):
    """A content block: a validated ``dict`` with typed attributes for its keys."""

    __slots__ = ()

    _keys: ClassVar[dict[str, _Key[Any]]] = {}
    """The block's keys, ``type`` first."""
    _tag: ClassVar[str] = ""
    """The ``type`` tag of this kind of block."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        keys: dict[str, _Key[Any]] = {}
        for klass in reversed(cls.__mro__):
            keys.update((k, v) for k, v in vars(klass).items() if isinstance(v, _Key))
        if "type" in keys:
            keys = {"type": keys.pop("type"), **keys}
            cls._tag = keys["type"].default
        cls._keys = keys

    def __init__(self, data: Mapping[str, Any] | Iterable[Any] | None = None, /, **kwargs: Any):
        given = {**dict(data), **kwargs} if data is not None else kwargs
        try:
            super().__init__(self._validated(given))
        except _Invalid as error:
            raise _validation_error(type(self).__name__, error) from None

    @classmethod
    def _validated(cls, given: Mapping[str, Any], loc: Loc = ()) -> dict[str, Any]:
        problems: list[tuple[Loc, str, Any]] = []
        for key in given:
            if key not in cls._keys:
                problems.append(((*loc, key), "Extra inputs are not permitted", given[key]))
        out: dict[str, Any] = {}
        for name, spec in cls._keys.items():
            value = given.get(name, _REQUIRED)
            if value is _REQUIRED or (value is None and spec.omit is None):
                if spec.factory is not None:
                    out[name] = spec.factory()
                elif spec.default is _REQUIRED:
                    problems.append(((*loc, name), "Field required", dict(given)))
                elif spec.omit is _REQUIRED or spec.default != spec.omit:
                    out[name] = spec.default
                continue
            try:
                value = spec.check(value, (*loc, name))
            except _Invalid as error:
                problems.extend(error.problems)
                continue
            if spec.omit is _REQUIRED or value != spec.omit or type(value) is not type(spec.omit):
                out[name] = value
        if problems:
            raise _Invalid(problems)
        return out

    # -- a dict that stays valid ----------------------------------------------------------------
    def __setitem__(self, key: str, value: Any) -> None:
        spec = type(self)._keys.get(key)
        if spec is None:
            raise KeyError(
                f"{type(self).__name__} has no key {key!r}; its keys are "
                f"{', '.join(type(self)._keys)}."
            )
        if value is None and spec.omit is None:
            self.pop(key, None)
            return
        try:
            value = spec.check(value, (key,))
        except _Invalid as error:
            raise _validation_error(type(self).__name__, error) from None
        if spec.omit is not _REQUIRED and value == spec.omit and type(value) is type(spec.omit):
            self.pop(key, None)
        else:
            super().__setitem__(key, value)

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        """Set several keys, each validated."""
        for key, value in {**dict(other), **kwargs}.items():
            self[key] = value

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``block[key]``, set to ``default`` (validated) first when absent."""
        if key not in self:
            self[key] = default
        return self.get(key)

    def __ior__(self, other: Any) -> _Block:  # type: ignore[override,misc]
        self.update(other)
        return self

    def copy(self) -> Any:
        """A shallow copy, of the same class."""
        return type(self)(self)

    def __copy__(self) -> Any:
        return self.copy()

    # pydantic's names, for code written when blocks were pydantic models
    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy with ``update``'s keys set (validated); ``deep`` copies nested values too."""
        import copy

        data = {**self, **(update or {})}
        return type(self)(copy.deepcopy(data) if deep else data)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The block as plain dicts and lists (what ``json.dumps(block)`` writes)."""
        return _plain(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()

    # -- pydantic: how a model holding a block validates and dumps it ---------------------------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return _schema(lambda value: _coerce(value, {cls._tag: cls}) if cls._tag else value)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: GetJsonSchemaHandler) -> Any:
        return {"type": "object", "title": cls.__name__}


def _plain(value: Any) -> Any:
    """Blocks (nested ones too) as plain dicts and lists, for pydantic's dump."""
    if isinstance(value, _Block):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _schema(validate: Callable[[Any], Any]) -> CoreSchema:
    from pydantic_core import PydanticCustomError, core_schema

    def run(value: Any) -> Any:
        try:
            return validate(value)
        except _Invalid as error:
            text = "; ".join(
                f"{'.'.join(map(str, loc)) or 'block'}: {message}"
                for loc, message, _ in error.problems
            )
            raise PydanticCustomError("invalid_block", text) from None

    return core_schema.no_info_plain_validator_function(
        run, serialization=core_schema.plain_serializer_function_ser_schema(_plain)
    )


def _coerce(value: Any, kinds: Mapping[str, type[_Block]], loc: Loc = ()) -> _Block:
    """``value`` as one of ``kinds`` (by its ``type`` tag); a block of a right kind as it is."""
    if type(value) in kinds.values():
        return value
    if not isinstance(value, Mapping):
        raise _invalid(loc, f"Input should be a block ({', '.join(kinds)}) or a dict", value)
    tag = value.get("type")
    cls = kinds.get(tag) if isinstance(tag, str) else None
    if cls is None:
        expected = ", ".join(repr(k) for k in kinds)
        raise _invalid(
            (*loc, "type"),
            f"Input tag {tag!r} found using 'type' does not match any of the expected tags: "
            f"{expected}",
            value,
        )
    block = dict.__new__(cls)
    dict.__init__(block, cls._validated(value, loc))
    return block


class _OneOf:
    """``Annotated`` marker: a union of block kinds, told apart by the ``type`` tag."""

    def __init__(self, *kinds: type[_Block]) -> None:
        self.kinds = {k._tag: k for k in kinds}

    def __call__(self, value: Any, loc: Loc = ()) -> _Block:
        return _coerce(value, self.kinds, loc)

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return _schema(self)

    def __get_pydantic_json_schema__(self, schema: Any, handler: GetJsonSchemaHandler) -> Any:
        return {"type": "object", "properties": {"type": {"enum": list(self.kinds)}}}


# -- the blocks ----------------------------------------------------------------------------------
def _tag(tag: str) -> _Key[Any]:
    def check(value: Any, loc: Loc) -> str:
        if value == tag:
            return tag
        raise _invalid(loc, f"Input should be {tag!r}", value)

    return _Key(check, tag)


class TextBlock(_Block):
    """Plain text written by a person, a model or a tool."""

    __slots__ = ()
    type: _Key[Literal["text"]] = _tag("text")
    text: _Key[str] = _Key(_str)
    """The text itself."""


class ThinkingBlock(_Block):
    """Reasoning content that a model exposed separately from its answer."""

    __slots__ = ()
    type: _Key[Literal["thinking"]] = _tag("thinking")
    thinking: _Key[str] = _Key(_str)
    """The reasoning text."""


class Base64Source(_Block):
    """Media data carried inline, base64-encoded."""

    __slots__ = ()
    type: _Key[Literal["base64"]] = _tag("base64")
    media_type: _Key[str] = _Key(_str)
    """The MIME type of the data, e.g. ``image/png`` or ``audio/wav``."""
    data: _Key[str] = _Key(_str)
    """The base64-encoded bytes (without a ``data:`` prefix)."""


class URLSource(_Block):
    """Media data found at a URL (``https://...``) or a local path (``file://`` or plain)."""

    __slots__ = ()
    type: _Key[Literal["url"]] = _tag("url")
    url: _Key[str] = _Key(_str)
    """Where the data is."""


_SOURCE = _OneOf(Base64Source, URLSource)

MediaSource = Annotated[Union[Base64Source, URLSource], _SOURCE]  # noqa: UP007
"""The source of an image, audio or video block."""


class _MediaBlock(_Block):
    """A media block: its ``type`` tag (set by each kind) and where the data is."""

    __slots__ = ()
    source: _Key[Base64Source | URLSource] = _Key(_SOURCE)
    """Where the image, audio or video is."""


class ImageBlock(_MediaBlock):
    """An image, inline (base64) or by URL."""

    __slots__ = ()
    type: _Key[Literal["image"]] = _tag("image")


class AudioBlock(_MediaBlock):
    """An audio clip, inline (base64) or by URL."""

    __slots__ = ()
    type: _Key[Literal["audio"]] = _tag("audio")


class VideoBlock(_MediaBlock):
    """A video, inline (base64) or by URL."""

    __slots__ = ()
    type: _Key[Literal["video"]] = _tag("video")


class ToolUseBlock(_Block):
    """A call the model asked for: a tool name and JSON arguments."""

    __slots__ = ()
    type: _Key[Literal["tool_use"]] = _tag("tool_use")
    id: _Key[str] = _Key(_str)
    """The call id the matching ``ToolResultBlock`` repeats."""
    name: _Key[str] = _Key(_str)
    """Name of the tool to call."""
    input: _Key[dict[str, Any]] = _Key(_object, factory=dict)
    """Parsed JSON arguments."""
    raw_input: _Key[str | None] = _Key(_str, None, omit=None)
    """Arguments exactly as streamed so far, before parsing; ``None`` once complete and parsed.

    Differs on purpose from AgentScope, which also keeps the raw text of complete calls: here a
    set ``raw_input`` means "not (validly) parsed", which the agent and the chat rely on."""


_TOOL_OUTPUT = _OneOf(TextBlock, ImageBlock, AudioBlock, VideoBlock)

ToolOutputBlock = Annotated[
    Union[TextBlock, ImageBlock, AudioBlock, VideoBlock],  # noqa: UP007
    _TOOL_OUTPUT,
]
"""A block a tool can return: text, image, audio or video."""


def _output(value: Any, loc: Loc) -> str | list[Any]:
    if isinstance(value, str):
        return value
    if not isinstance(value, (list, tuple)):
        raise _invalid(loc, "Input should be a valid string or a list of blocks", value)
    out: list[Any] = []
    problems: list[tuple[Loc, str, Any]] = []
    for i, item in enumerate(value):
        try:
            out.append(_TOOL_OUTPUT(item, (*loc, i)))
        except _Invalid as error:
            problems.extend(error.problems)
    if problems:
        raise _Invalid(problems)
    return out


class ToolResultBlock(_Block):
    """What a tool returned for one ``ToolUseBlock``."""

    __slots__ = ()
    type: _Key[Literal["tool_result"]] = _tag("tool_result")
    id: _Key[str] = _Key(_str)
    """The id of the ``ToolUseBlock`` this answers."""
    name: _Key[str] = _Key(_str)
    """Name of the tool that ran."""
    output: _Key[str | list[TextBlock | ImageBlock | AudioBlock | VideoBlock]] = _Key(_output)
    """The tool's output, as text or blocks (text, image, audio, video)."""
    is_error: _Key[bool] = _Key(_bool, False, omit=False)
    """True when the call failed (bad arguments, unknown tool, exception); nb_hitl's key."""
    is_interrupted: _Key[bool] = _Key(_bool, False, omit=False)
    """True when the call was cut short, or never ran, because the reply was interrupted;
    nb_hitl's key."""

    def output_text(self) -> str:
        """Return the text of the output as a single string (media blocks left out)."""
        if isinstance(self.output, str):
            return self.output
        return "\n".join(b.text for b in self.output if isinstance(b, TextBlock))


_CONTENT = _OneOf(
    TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, ImageBlock, AudioBlock, VideoBlock
)

ContentBlock = Annotated[
    Union[  # noqa: UP007
        TextBlock,
        ThinkingBlock,
        ToolUseBlock,
        ToolResultBlock,
        ImageBlock,
        AudioBlock,
        VideoBlock,
    ],
    _CONTENT,
]
"""Any content block, discriminated by its ``type`` tag."""


def to_block(value: Any) -> ContentBlock:
    """``value`` as a content block: a block as it is, a dict as the block its ``type`` names.

    Raises:
        pydantic.ValidationError: not a block, an unknown ``type``, or a key missing or wrong.
    """
    try:
        return _CONTENT(value)  # type: ignore[return-value]
    except _Invalid as error:
        raise _validation_error("ContentBlock", error) from None


BlockType = Literal["text", "thinking", "tool_use", "tool_result", "image", "audio", "video"]
"""The ``type`` tag of a content block (AgentScope's ``ContentBlockTypes``)."""

ContentBlockTypes = BlockType
"""AgentScope's name for ``BlockType``."""
