"""Each metadata key is named once (``MetaKey``), with the wire names saved sessions carry."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import nb_hitl
from nb_hitl.message import MetaKey, Msg

ROOT = Path(nb_hitl.__file__).parent

KEYS = {name: value for name, value in vars(MetaKey).items() if name.isupper()}

NOT_METADATA = {
    # the same words used for other things: event kinds, a package name, provider usage fields
    ("events.py", "stopped_after_step"),
    ("pipeline/_pipelines.py", "pipeline"),
    ("__init__.py", "pipeline"),
    ("model/_openai_stream.py", "usage"),
    ("model/_dashscope_native.py", "usage"),
    ("model/_openai_prefix.py", "usage"),
    ("message/_msg.py", "usage"),  # the Msg.usage field's name in to_dict()
}


def test_the_keys_keep_their_wire_names() -> None:
    assert KEYS["IS_INTERRUPTED"] == "_is_interrupted"
    assert KEYS["INTERRUPTED_BY"] == "interrupted_by"
    assert KEYS["CONTINUED_FROM"] == "continued_from"
    assert KEYS["PARTIAL"] == "_partial"
    assert len(set(KEYS.values())) == len(KEYS), "two names for one key"
    assert all(isinstance(v, str) for v in KEYS.values())


def test_a_message_marked_with_the_constant_reads_as_interrupted() -> None:
    msg = Msg("a", "so far", "assistant", metadata={MetaKey.IS_INTERRUPTED: True})
    assert msg.is_interrupted
    assert Msg.model_validate_json(msg.model_dump_json()).metadata == {"_is_interrupted": True}


def _literals(path: Path) -> set[str]:
    found = set()
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING and tok.string[:1] in "\"'":
            found.add(tok.string[1:-1])
    return found


def test_no_module_spells_a_key_as_a_literal() -> None:
    values = set(KEYS.values())
    spelled = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative == "message/_metadata.py" or relative.startswith("_render/"):
            continue  # the definitions; _render sits below message and imports nothing
        for key in sorted(_literals(path) & values):
            if (relative, key) not in NOT_METADATA:
                spelled.append(f"{relative}: {key!r}")
    assert not spelled, "use nb_hitl.message.MetaKey instead of:\n" + "\n".join(spelled)


def test_the_render_package_reads_only_named_keys() -> None:
    render_keys = {"_error", "_nb_hitl_error", "_partial", "_steered", "interrupted_by"}
    assert render_keys <= set(KEYS.values())
    assert render_keys & _literals(ROOT / "_render" / "_msg.py") == render_keys
