"""End-to-end test of `flowmcp lsp` with a real LSP client (pytest-lsp), issue #42.

Run by the CLI's Rust test `lsp_clients::i42_pytest_lsp_drives_the_server` with:
  FLOWMCP_BIN      the flowmcp binary under test
  FLOWMCP_CATALOG  a scratch copy of the repository's examples/catalog (files are edited in memory
                   only; nothing is written)
The client goes through initialize, open, change, hover, completion, definition, code action and
shutdown on the example catalog and checks ranges and contents.
"""

import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

BIN = os.environ["FLOWMCP_BIN"]
CATALOG = pathlib.Path(os.environ["FLOWMCP_CATALOG"]).resolve()
SCHEMA = CATALOG / "providers" / "holidaykit-net" / "public-holidays.mjs"
LIST = CATALOG / "_lists" / "countries.mjs"
SELECTION = CATALOG / "selections" / "days-off" / "selection.mjs"


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[BIN, "lsp"]),
)
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(
        t.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=CATALOG.as_uri(),
            workspace_folders=[t.WorkspaceFolder(uri=CATALOG.as_uri(), name="catalog")],
        )
    )
    caps = result.capabilities
    assert caps.hover_provider
    assert caps.definition_provider
    assert caps.completion_provider is not None
    assert caps.code_action_provider
    yield
    await lsp_client.shutdown_session()


def position_of(text: str, needle: str, offset: int = 0) -> t.Position:
    """The position (UTF-16 columns; the fixtures are ASCII there) of `needle` plus `offset`."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    return t.Position(line=line, character=column)


async def open_and_wait(client: LanguageClient, path: pathlib.Path, text: str, version: int = 1):
    uri = path.as_uri()
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(
            text_document=t.TextDocumentItem(uri=uri, language_id="javascript", version=version, text=text)
        )
    )
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def change_and_wait(client: LanguageClient, uri: str, text: str, version: int):
    client.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


@pytest.mark.asyncio
async def test_diagnostics_fix_and_clear(client: LanguageClient):
    good = SCHEMA.read_text()
    bad = good.replace("schemaHash: 'a1411451'", "schemaHash: 'deadbeef'")
    assert bad != good
    uri = await open_and_wait(client, SCHEMA, bad)
    found = [d for d in client.diagnostics[uri] if d.code == "VAL087"]
    assert len(found) == 1, client.diagnostics[uri]
    d = found[0]
    start = position_of(bad, "'deadbeef'")
    assert d.range.start.line == start.line
    assert d.range.start.character <= start.character <= d.range.end.character
    assert d.code_description is not None and d.code_description.href.endswith("docs/rules/VAL087.md")
    assert d.source == "flowmcp"

    # The code action of that diagnostic is its fix: the right hash, at the value's place.
    actions = await client.text_document_code_action_async(
        t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=t.CodeActionContext(diagnostics=[d]),
        )
    )
    fixes = [a for a in actions or [] if isinstance(a, t.CodeAction) and a.edit is not None]
    assert fixes, actions
    edits = fixes[0].edit.changes[uri]
    assert any("a1411451" in e.new_text for e in edits), edits

    # Changing the text back clears the finding.
    await change_and_wait(client, uri, good, 2)
    assert not [d for d in client.diagnostics[uri] if d.code == "VAL087"]
    assert not [d for d in client.diagnostics[uri] if d.severity == t.DiagnosticSeverity.Error]


@pytest.mark.asyncio
async def test_hover_completion_definition(client: LanguageClient):
    text = SCHEMA.read_text()
    uri = await open_and_wait(client, SCHEMA, text)

    # Hover on a shared-list placeholder names the list and its field.
    hover = await client.text_document_hover_async(
        t.HoverParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            position=position_of(text, "{{countries:alpha2}}", 4),
        )
    )
    assert hover is not None
    shown = hover.contents.value if isinstance(hover.contents, t.MarkupContent) else str(hover.contents)
    assert "countries" in shown and "alpha2" in shown, shown

    # Definition of the list reference is the list file.
    where = await client.text_document_definition_async(
        t.DefinitionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            position=position_of(text, "ref: 'countries'", 7),
        )
    )
    targets = where if isinstance(where, list) else [where]
    uris = [getattr(w, "uri", None) or getattr(w, "target_uri", None) for w in targets if w]
    assert LIST.as_uri() in uris, where

    # Completion inside `{{` offers the placeholder kinds.
    edited = text.replace("value: '{{USER_PARAM}}', location: 'query'", "value: '{{', location: 'query'", 1)
    await change_and_wait(client, uri, edited, 2)
    items = await client.text_document_completion_async(
        t.CompletionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            position=position_of(edited, "value: '{{', location: 'query'", len("value: '{{")),
        )
    )
    labels = [i.label for i in (items.items if isinstance(items, t.CompletionList) else items or [])]
    assert any("USER_PARAM" in label for label in labels), labels
    assert any("SERVER_PARAM" in label for label in labels), labels


@pytest.mark.asyncio
async def test_tool_ids_in_a_selection(client: LanguageClient):
    text = SELECTION.read_text()
    uri = await open_and_wait(client, SELECTION, text)
    at = position_of(text, "holidaykit-net/tool/getPublicHolidays", 5)

    # Hover on a tool ID shows the tool's description and parameters.
    hover = await client.text_document_hover_async(
        t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert hover is not None
    shown = hover.contents.value if isinstance(hover.contents, t.MarkupContent) else str(hover.contents)
    assert "Returns all holidays of a country" in shown, shown
    assert "countryCode" in shown, shown

    # Definition of the ID is the tool in its schema file.
    where = await client.text_document_definition_async(
        t.DefinitionParams(text_document=t.TextDocumentIdentifier(uri=uri), position=at)
    )
    targets = where if isinstance(where, list) else [where]
    found = [w for w in targets if w and getattr(w, "uri", None) == SCHEMA.as_uri()]
    assert found, where
    schema_text = SCHEMA.read_text()
    assert found[0].range.start.line == position_of(schema_text, "getPublicHolidays: {").line
