"""Drive `flowmcp serve` with the Python `mcp` package's client, a client this project did not write.

Usage: python python_mcp.py stdio <flowmcp binary> <catalog dir> <upstream NS=URL>
       python python_mcp.py agent <flowmcp binary> <catalog dir> <upstream NS=URL>
       python python_mcp.py http <url of /mcp> <bearer token> <foreign origin>

Prints what the client saw (tools with their annotations, _meta and output schemas; the results of
a call that succeeds and of calls that fail; resources; prompts and a rendered skill) and exits
non-zero when something is not as expected.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        check.failed = True


check.failed = False


async def exercise(session):
    init = await session.initialize()
    print("server:", init.server_info.name, init.server_info.version, "protocol", init.protocol_version)
    listed = await session.list_tools()
    tools = {t.name: t for t in listed.tools}
    print("tools:", ", ".join(sorted(tools)))
    t = tools.get("getPublicHolidays_holidaykit-net")
    check(t is not None, "getPublicHolidays_holidaykit-net is listed")
    if t is None:
        return
    dumped = t.model_dump(by_alias=True, exclude_none=True)
    print(json.dumps({k: dumped[k] for k in ("name", "title", "annotations", "_meta") if k in dumped}, indent=1))
    check(dumped.get("annotations", {}).get("readOnlyHint") is True, "annotations.readOnlyHint")
    check(dumped.get("annotations", {}).get("openWorldHint") is True, "annotations.openWorldHint")
    check(dumped.get("_meta", {}).get("flowmcp/id") == "holidaykit-net/tool/getPublicHolidays", "_meta flowmcp/id")
    check(dumped.get("outputSchema", {}).get("type") == "object", "outputSchema is an object schema")

    ok = await session.call_tool("getPublicHolidays_holidaykit-net", {"year": 2026, "countryCode": "DE"})
    print("call ok: isError", ok.is_error, "structured", json.dumps(ok.structured_content)[:160])
    check(ok.is_error is False and isinstance(ok.structured_content, dict), "a call succeeds with structured content")

    bad = await session.call_tool("getPublicHolidays_holidaykit-net", {"year": "soon"})
    text = " ".join(c.text for c in bad.content if getattr(c, "text", None))
    print("call bad input: isError", bad.is_error, "text", text[:160])
    check(bad.is_error is True and text.startswith("E007"), "bad input is a tool error with E007")

    # Resources: a SQLite query is a tool with local hints; markdown is also an MCP resource.
    q = tools.get("byCode_atlasdata-org")
    check(q is not None, "the resource query byCode_atlasdata-org is listed")
    if q is not None:
        qd = q.model_dump(by_alias=True, exclude_none=True)
        check(qd.get("annotations", {}).get("openWorldHint") is False, "a resource query has openWorldHint false")
        check(qd.get("title") == "countries.byCode", "a resource query's title is resource.query")
    row = await session.call_tool("byCode_atlasdata-org", {"code": "jp"})
    text = " ".join(c.text for c in row.content if getattr(c, "text", None))
    print("resource query: isError", row.is_error, "text", text[:120])
    check(row.is_error is False and "Tokyo" in text, "a resource query answers offline")
    resources = await session.list_resources()
    uris = [str(r.uri) for r in resources.resources]
    print("resources:", ", ".join(uris))
    check("flowmcp://atlasdata-org/resource/guide" in uris, "the markdown guide is an MCP resource")
    templates = await session.list_resource_templates()
    print("templates:", ", ".join(t.uri_template for t in templates.resource_templates))
    part = await session.read_resource("flowmcp://atlasdata-org/resource/guide?section=%23%23%20Queries")
    body = part.contents[0].text if part.contents else ""
    print("read section:", body.splitlines()[0] if body else "")
    check(body.startswith("## Queries"), "a resource template reads one section")

    # Prompts and skills: listed by ID; a skill renders with its prefill run against the upstream.
    listed = await session.list_prompts()
    names = [p.name for p in listed.prompts]
    print("prompts:", ", ".join(names))
    skill_id = "holidaykit-net/skill/plan-long-weekends"
    check(skill_id in names and "holidaykit-net/prompt/about" in names, "the example's prompts and skill are MCP prompts")
    skill = next((p for p in listed.prompts if p.name == skill_id), None)
    if skill is not None:
        required = {a.name: bool(a.required) for a in (skill.arguments or [])}
        check(required == {"year": True, "countryCode": True, "region": False}, "the skill's inputs are its arguments")
    got = await session.get_prompt(skill_id, {"year": "2026", "countryCode": "DE"})
    text = got.messages[0].content.text if got.messages else ""
    print("skill rendered:", " | ".join(text.splitlines()[:3]))
    check("German Unity Day" in text, "the prefill result from the demo upstream is in the skill")
    check("getPublicHolidays_holidaykit-net" in text, "the tool block names the MCP tool")
    check("{{" not in text, "every placeholder is resolved")


async def agent_view(session):
    """`serve --agent holiday-planner`: exactly what activating the example agent brings."""
    await session.initialize()
    tools = sorted(t.name for t in (await session.list_tools()).tools)
    print("agent tools:", ", ".join(tools))
    expected_tools = sorted([
        "byCode_atlasdata-org", "byContinent_atlasdata-org", "runSql_atlasdata-org",
        "describeTables_atlasdata-org", "listCountries_holidaykit-net",
        "getPublicHolidays_holidaykit-net", "checkWorkingDay_holidaykit-net"])
    check(tools == expected_tools, "serve --agent lists exactly the agent's tools")
    prompts = sorted(p.name for p in (await session.list_prompts()).prompts)
    print("agent prompts:", ", ".join(prompts))
    check(prompts == ["holidaykit-net/prompt/about", "holidaykit-net/prompt/bridge-days",
                      "holidaykit-net/skill/plan-long-weekends"],
          "serve --agent lists exactly the agent's prompts and skills")
    ok = await session.call_tool("getPublicHolidays_holidaykit-net", {"year": 2026, "countryCode": "DE"})
    print("agent tool call: isError", ok.is_error)
    check(ok.is_error is False, "an agent's tool is called through the catalog")
    other = await session.call_tool("searchBooks_openshelf-org", {"query": "dune"})
    check(other.is_error is True, "a tool outside the agent is not served")
    # The agent enables elicitation: a call without countryCode asks the user (see on_elicit).
    asked = await session.call_tool("getPublicHolidays_holidaykit-net", {"year": 2026})
    print("elicited:", ELICITED, "isError", asked.is_error)
    check(ELICITED == ["Which country do you live in?"], "the agent's elicitation form is shown once")
    check(asked.is_error is False, "the call runs with what the user gave")


ELICITED = []


async def on_elicit(context, params):
    """The user of `serve --agent`: answers the agent's form with Germany."""
    ELICITED.append(params.message)
    return types.ElicitResult(action="accept", content={"countryCode": "DE"})


async def over_http(url, token, foreign_origin):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient() as raw:
        r = await raw.post(url, json=init, headers=accept)
        print("no token:", r.status_code, r.headers.get("www-authenticate"))
        check(r.status_code == 401, "a missing bearer token gets 401")
        r = await raw.post(url, json=init, headers={**accept, "Authorization": "Bearer wrong"})
        print("wrong token:", r.status_code)
        check(r.status_code == 401, "a wrong bearer token gets 401")
        r = await raw.post(url, json=init, headers={**accept, "Authorization": f"Bearer {token}",
                                                    "Origin": foreign_origin})
        print("foreign origin:", r.status_code)
        check(r.status_code == 403, "a foreign Origin gets 403")
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await exercise(session)


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        binary, catalog, upstream = sys.argv[2:5]
        params = StdioServerParameters(command=binary, args=["serve", catalog, "--upstream", upstream])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session)
    elif mode == "agent":
        binary, catalog, upstream = sys.argv[2:5]
        params = StdioServerParameters(
            command=binary, args=["serve", catalog, "--agent", "holiday-planner", "--upstream", upstream])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
                await agent_view(session)
    elif mode == "http":
        await over_http(*sys.argv[2:5])
    else:
        raise SystemExit(f"unknown mode {mode}")
    sys.exit(1 if check.failed else 0)


asyncio.run(main())
