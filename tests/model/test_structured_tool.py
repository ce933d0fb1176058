"""The forced tool of a ``structured_model`` call describes the model's fields faithfully."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from nb_hitl.model._structured import structured_tool


class Book(BaseModel):
    title: str
    year: int


class Shelf(BaseModel):
    """A shelf of books."""

    title: str
    books: list[Book]


def schema_titles(node: Any, path: str = "") -> list[str]:
    """Where a schema node (not a property name) still has pydantic's ``title``."""
    found: list[str] = []
    if isinstance(node, dict):
        if isinstance(node.get("title"), str):
            found.append(path or "/")
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, prop in value.items():
                    found += schema_titles(prop, f"{path}/properties/{name}")
            elif key != "title":
                found += schema_titles(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += schema_titles(value, f"{path}/{i}")
    return found


def test_fields_named_title_survive_at_every_level_and_schema_titles_go() -> None:
    tool = structured_tool(Shelf)
    assert tool["function"]["name"] == "generate_structured_output"  # the documented name
    params = tool["function"]["parameters"]
    assert list(params["properties"]) == ["title", "books"]
    book = params["$defs"]["Book"]
    assert list(book["properties"]) == ["title", "year"]  # a nested model keeps its fields
    assert book["required"] == ["title", "year"]
    assert schema_titles(params) == []
    assert Shelf.model_json_schema()["$defs"]["Book"]["title"] == "Book"  # the model untouched
